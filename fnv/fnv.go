package fnv

const (
	offset32 uint32 = 2166136261
	prime32  uint32 = 16777619
)

// Sum32a returns the FNV-1a 32-bit hash of the UTF-8 bytes of s.
// It does not allocate.
func Sum32a(s string) uint32 {
	h := offset32
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= prime32
	}
	return h
}

// Hex32a returns Sum32a(s) as 8 lowercase hexadecimal digits, zero-padded:
// Hex32a("") is "811c9dc5".
func Hex32a(s string) string {
	const digits = "0123456789abcdef"
	h := Sum32a(s)
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[h&0xf]
		h >>= 4
	}
	return string(b[:])
}
