package agent

import (
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// withValidators returns s with the [WithValidators] validators joined
// and the [WithRepairs] repairs chosen, made once per schema; s itself
// when there are none. A validator the contract refuses is an invalid
// option.
func (a *Agent) withValidators(s *enforce.Schema) (*enforce.Schema, error) {
	if len(a.cfg.validators) == 0 && a.cfg.repairs == 0 {
		return s, nil
	}
	if v, ok := a.validated.Load(s); ok {
		return v.(*enforce.Schema), nil
	}
	v := s
	if len(a.cfg.validators) > 0 {
		var err error
		if v, err = s.WithValidators(a.cfg.validators...); err != nil {
			return nil, fmt.Errorf("%w: WithValidators: %w", ErrInvalidOption, err)
		}
	}
	if a.cfg.repairs != 0 {
		v = v.WithRepairs(a.cfg.repairs)
	}
	actual, _ := a.validated.LoadOrStore(s, v)
	return actual.(*enforce.Schema), nil
}

// ledgerOptions are the options [WithRepeatLimit] and
// [WithFailedCostBudget] give the ledger.
func (c *config) ledgerOptions() []enforce.LedgerOption {
	var opts []enforce.LedgerOption
	if c.repeats != 0 {
		opts = append(opts, enforce.WithRepeatLimit(c.repeats))
	}
	if c.budget != (enforce.Cost{}) {
		opts = append(opts, enforce.WithFailedCostBudget(c.budget))
	}
	return opts
}
