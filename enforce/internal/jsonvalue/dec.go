package jsonvalue

import (
	"cmp"
	"math/bits"
)

// Dec is a JSON number as an exact decimal, mant × 10^exp with no
// trailing zeros in mant (mant 0 is zero, whatever its sign), for the
// fast path's comparisons without big.Rat. OK is false when the number
// has more than 19 significant digits, or an exponent too large to
// count: big.Rat then decides.
type Dec struct {
	neg  bool
	mant uint64
	exp  int
	OK   bool
}

// ParseDec reads a number in JSON syntax.
func ParseDec(s string) Dec {
	var d Dec
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	digits, frac := 0, 0 // significant digits kept; digits after the point
	zeros := 0           // zeros seen since the last non-zero digit, not yet in mant
	inFrac := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			inFrac = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		if inFrac {
			frac++
		}
		if c == '0' {
			if digits > 0 {
				zeros++
			}
			continue
		}
		for ; zeros > 0; zeros-- {
			if digits++; digits > 19 {
				return Dec{}
			}
			d.mant *= 10
		}
		if digits++; digits > 19 {
			return Dec{}
		}
		d.mant = d.mant*10 + uint64(c-'0')
	}
	// The pending zeros are trailing: they scale, not count.
	e := zeros - frac
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		x := 0
		for ; i < len(s); i++ {
			if x > 1e8 {
				return Dec{}
			}
			x = x*10 + int(s[i]-'0')
		}
		if eneg {
			x = -x
		}
		e += x
	}
	d.exp = e
	d.OK = true
	return d
}

func (d Dec) sign() int {
	switch {
	case d.mant == 0:
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func (d Dec) IsInt() bool { return d.mant == 0 || d.exp >= 0 }

func ndigits(x uint64) int {
	n := 1
	for x >= 10 {
		x /= 10
		n++
	}
	return n
}

var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// Cmp compares d and o as numbers: -1, 0 or 1.
func (d Dec) Cmp(o Dec) int {
	sd, so := d.sign(), o.sign()
	if sd != so || sd == 0 {
		return cmp.Compare(sd, so)
	}
	m := d.cmpMag(o)
	if sd < 0 {
		return -m
	}
	return m
}

// cmpMag compares the magnitudes of two non-zero decimals.
func (d Dec) cmpMag(o Dec) int {
	da, db := ndigits(d.mant)+d.exp, ndigits(o.mant)+o.exp
	if da != db {
		return cmp.Compare(da, db)
	}
	// Same order of magnitude: scaled to the smaller exponent, both have
	// the same digits, at most 19.
	a, b := d.mant, o.mant
	if d.exp > o.exp {
		a *= pow10[d.exp-o.exp]
	} else if o.exp > d.exp {
		b *= pow10[o.exp-d.exp]
	}
	return cmp.Compare(a, b)
}

// MultipleOf reports whether d / m is an integer; m > 0.
func (d Dec) MultipleOf(m Dec) bool {
	if d.mant == 0 {
		return true
	}
	k := d.exp - m.exp
	if k < 0 {
		// d.mant has no trailing zero, so m.mant × 10^-k cannot divide it.
		return false
	}
	// d.mant × 10^k mod m.mant, ten at a time.
	r := d.mant % m.mant
	for ; k > 0 && r != 0; k-- {
		hi, lo := bits.Mul64(r, 10)
		_, r = bits.Div64(hi, lo, m.mant)
	}
	return r == 0
}
