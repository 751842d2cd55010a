package label

import "github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"

// scalarPrefix follows the bytes of an answer after its leading JSON
// whitespace, and says whether they may still begin a JSON number or
// literal (with JSON whitespace after it).
type scalarPrefix struct {
	state uint8
	lit   string // the literal being matched
	at    int    // bytes of it matched
}

const (
	scStart uint8 = iota
	scMinus
	scZero
	scInt
	scDot
	scFrac
	scE
	scESign
	scExp
	scLit
	scAfter
	scDead
)

// step reads b and reports whether a number or literal may still come.
func (p *scalarPrefix) step(b byte) bool {
	digit := b >= '0' && b <= '9'
	switch p.state {
	case scStart:
		switch {
		case b == '-':
			p.state = scMinus
		case b == '0':
			p.state = scZero
		case digit:
			p.state = scInt
		case b == 't':
			p.state, p.lit, p.at = scLit, "true", 1
		case b == 'f':
			p.state, p.lit, p.at = scLit, "false", 1
		case b == 'n':
			p.state, p.lit, p.at = scLit, "null", 1
		default:
			p.state = scDead
		}
	case scMinus:
		switch {
		case b == '0':
			p.state = scZero
		case digit:
			p.state = scInt
		default:
			p.state = scDead
		}
	case scZero, scInt:
		switch {
		case digit && p.state == scInt:
		case b == '.':
			p.state = scDot
		case b == 'e' || b == 'E':
			p.state = scE
		case jsonvalue.IsSpace(b):
			p.state = scAfter
		default:
			p.state = scDead
		}
	case scDot:
		p.state = pick(digit, scFrac, scDead)
	case scFrac:
		switch {
		case digit:
		case b == 'e' || b == 'E':
			p.state = scE
		case jsonvalue.IsSpace(b):
			p.state = scAfter
		default:
			p.state = scDead
		}
	case scE:
		switch {
		case b == '+' || b == '-':
			p.state = scESign
		case digit:
			p.state = scExp
		default:
			p.state = scDead
		}
	case scESign:
		p.state = pick(digit, scExp, scDead)
	case scExp:
		switch {
		case digit:
		case jsonvalue.IsSpace(b):
			p.state = scAfter
		default:
			p.state = scDead
		}
	case scLit:
		switch {
		case p.at < len(p.lit) && p.lit[p.at] == b:
			p.at++
		case p.at == len(p.lit) && jsonvalue.IsSpace(b):
			p.state = scAfter
		default:
			p.state = scDead
		}
	case scAfter:
		if !jsonvalue.IsSpace(b) {
			p.state = scDead
		}
	}
	return p.state != scDead
}

// pick is a if ok, else b.
func pick(ok bool, a, b uint8) uint8 {
	if ok {
		return a
	}
	return b
}
