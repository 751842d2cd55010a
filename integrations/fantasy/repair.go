package fantasy

import (
	"context"
	"errors"

	"charm.land/fantasy/schema"

	"github.com/enforcer-go/enforcer/enforce"
)

// ErrNotMended is what [RepairText]'s hook returns for a text enforcer's
// repairs do not bring within the contract: fantasy then keeps its own
// error.
var ErrNotMended = errors.New("fantasy: no repair of enforcer's mends the text")

// RepairText is fantasy's ObjectCall.RepairText hook, mended by s's
// repairs (s.WithRepairs): fantasy calls it with a text its own check
// refused, and it returns what the repairs made of it only when that
// keeps s's whole contract, strictly judged; else [ErrNotMended]. Each
// mend is on the record: record, when not nil, is called with the
// repairs applied. fantasy checks the mended text again, against its
// own schema.
func RepairText(s *enforce.Schema, record func(enforce.Repairs)) schema.ObjectRepairFunc {
	strict := s.WithRepairs(0)
	return func(_ context.Context, text string, _ error) (string, error) {
		mended, applied := s.Repaired(text)
		if applied == 0 || strict.Check(mended) != nil {
			return "", ErrNotMended
		}
		if record != nil {
			record(applied)
		}
		return mended, nil
	}
}
