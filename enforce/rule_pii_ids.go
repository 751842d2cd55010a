package enforce

import (
	"strconv"
	"strings"
)

// National identity numbers ([PII]'s kinds from PIISSN on): a layout of
// digit groups, and a check where the number has one.

// findNationalIDs returns the numbers of kind k (a national ID's) in s.
func findNationalIDs(s string, k PIIKind) []piiMatch {
	switch k {
	case PIISSN:
		return findDigitIDs(s, k, " -", [][]int{{3, 2, 4}}, ssn)
	case PIIAadhaar:
		return findDigitIDs(s, k, " -", [][]int{{12}, {4, 4, 4}}, aadhaar)
	case PIISteuerID:
		return findDigitIDs(s, k, " ", [][]int{{11}, {2, 3, 3, 3}}, steuerID)
	case PIINIR:
		return findDigitIDs(s, k, " ", [][]int{{15}, {13, 2}, {1, 2, 2, 2, 3, 3, 2}}, nir)
	case PIIDNI:
		return findDNIs(s)
	case PIININO:
		return findNINOs(s)
	}
	return nil
}

// findDigitIDs finds, where a word begins, a run of digit groups split
// by one kind of byte of seps whose lengths are one of layouts (the
// longest read first) and whose digits pass ok. A run that holds none
// is passed over whole: its tail is no number of its own.
func findDigitIDs(s string, k PIIKind, seps string, layouts [][]int, ok func(d string) bool) []piiMatch {
	var found []piiMatch
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || !wordAt(s, i) || i > 0 && strings.IndexByte(".-/+_,#$%:", s[i-1]) >= 0 {
			continue
		}
		ends, digits := digitGroups(s, i, seps, true)
		end := ends[len(ends)-1]
		for g := len(ends) - 1; g >= 0; g-- {
			if wordEnds(s, ends[g]) && (g+1 == len(ends) || s[ends[g]] != '-') && laidOut(digits[:g+1], layouts) && ok(digits[g]) {
				found = append(found, piiMatch{k, i, ends[g]})
				break
			}
		}
		i = end
	}
	return found
}

// laidOut reports whether the groups, each given as the digits read
// through it, have the lengths of one of layouts.
func laidOut(through []string, layouts [][]int) bool {
next:
	for _, l := range layouts {
		if len(l) != len(through) {
			continue
		}
		prev := 0
		for g, t := range through {
			if len(t)-prev != l[g] {
				continue next
			}
			prev = len(t)
		}
		return true
	}
	return false
}

// ssn: no area 000, 666 or 900 to 999, no group 00, no serial 0000.
func ssn(d string) bool {
	area := d[:3]
	return area != "000" && area != "666" && area[0] != '9' && d[3:5] != "00" && d[5:] != "0000"
}

// The Verhoeff check's tables: the dihedral group D5's products and the
// permutation applied to each position.
var (
	verhoeffD = [10][10]byte{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5},
		{2, 3, 4, 0, 1, 7, 8, 9, 5, 6}, {3, 4, 0, 1, 2, 8, 9, 5, 6, 7},
		{4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
		{6, 5, 9, 8, 7, 1, 0, 4, 3, 2}, {7, 6, 5, 9, 8, 2, 1, 0, 4, 3},
		{8, 7, 6, 5, 9, 3, 2, 1, 0, 4}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
	}
	verhoeffP = [8][10]byte{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4},
		{5, 8, 0, 3, 7, 9, 6, 1, 4, 2}, {8, 9, 1, 6, 0, 4, 3, 5, 2, 7},
		{9, 4, 5, 3, 1, 2, 6, 8, 7, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1},
		{2, 7, 9, 3, 8, 0, 6, 4, 1, 5}, {7, 0, 4, 6, 9, 1, 3, 2, 5, 8},
	}
)

// aadhaar: the first digit 2 to 9, and the Verhoeff check.
func aadhaar(d string) bool {
	if d[0] < '2' {
		return false
	}
	c := byte(0)
	for i := range len(d) {
		c = verhoeffD[c][verhoeffP[i%8][d[len(d)-1-i]-'0']]
	}
	return c == 0
}

// steuerID: the first digit not 0; of the first ten, one digit twice or
// thrice and the others at most once; and ISO 7064's MOD 11,10.
func steuerID(d string) bool {
	if d[0] == '0' {
		return false
	}
	var count [10]int
	for _, c := range d[:10] {
		count[c-'0']++
	}
	repeated := 0
	for _, n := range count {
		switch {
		case n > 3:
			return false
		case n > 1:
			repeated++
		}
	}
	if repeated != 1 {
		return false
	}
	product := 10
	for _, c := range d[:10] {
		sum := (int(c-'0') + product) % 10
		if sum == 0 {
			sum = 10
		}
		product = sum * 2 % 11
	}
	check := 11 - product
	if check == 10 {
		check = 0
	}
	return int(d[10]-'0') == check
}

// nir: sex 1 or 2, month 01 to 12 or 20, and the key 97 less the first
// 13 digits mod 97.
func nir(d string) bool {
	month := d[3:5]
	if d[0] != '1' && d[0] != '2' || !(month >= "01" && month <= "12" || month == "20") {
		return false
	}
	n, err := strconv.ParseInt(d[:13], 10, 64)
	key, err2 := strconv.Atoi(d[13:])
	return err == nil && err2 == nil && key == int(97-n%97)
}

// dniLetters are a DNI's check letters, by its number mod 23.
const dniLetters = "TRWAGMYFPDXBNJZSQVHLCKE"

func findDNIs(s string) []piiMatch {
	var found []piiMatch
	for i := 0; i < len(s); i++ {
		if !wordAt(s, i) {
			continue
		}
		j, digits, want := i, "", 8
		if strings.IndexByte("XYZ", s[i]) >= 0 {
			// An NIE: its letter reads as 0, 1 or 2 before its 7 digits.
			digits, want = string('0'+s[i]-'X'), 7
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k-j != want {
			continue
		}
		digits += s[j:k]
		if k < len(s) && (s[k] == '-' || s[k] == ' ') {
			k++
		}
		if k == len(s) || !isUpper(s[k]) || !wordEnds(s, k+1) {
			continue
		}
		n, _ := strconv.Atoi(digits)
		if dniLetters[n%23] == s[k] {
			found = append(found, piiMatch{PIIDNI, i, k + 1})
			i = k
		}
	}
	return found
}

func findNINOs(s string) []piiMatch {
	var found []piiMatch
	for i := 0; i+9 <= len(s); i++ {
		if !wordAt(s, i) || !ninoPrefix(s[i:i+2]) {
			continue
		}
		// Six digits, bare or in pairs split by spaces, then the suffix
		// after a space or none.
		j, digits := i+2, 0
		for digits < 6 && j < len(s) {
			switch {
			case s[j] == ' ' && digits%2 == 0 && j+1 < len(s) && isDigit(s[j+1]):
				j++
			case isDigit(s[j]):
				digits++
				j++
			default:
				digits = -1
			}
			if digits < 0 {
				break
			}
		}
		if digits != 6 {
			continue
		}
		if j < len(s) && s[j] == ' ' {
			j++
		}
		if j < len(s) && s[j] >= 'A' && s[j] <= 'D' && wordEnds(s, j+1) {
			found = append(found, piiMatch{PIININO, i, j + 1})
			i = j
		}
	}
	return found
}

// ninoPrefix reports whether p is an allowed NINO prefix: no D, F, I, Q,
// U or V, no O second, and none of BG, GB, KN, NK, NT, TN, ZZ.
func ninoPrefix(p string) bool {
	if !isUpper(p[0]) || !isUpper(p[1]) || strings.IndexByte("DFIQUV", p[0]) >= 0 || strings.IndexByte("DFIQUVO", p[1]) >= 0 {
		return false
	}
	switch p {
	case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
		return false
	}
	return true
}
