package enforce

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// decodeIssue reports an answer that does not decode into the Go type, at
// the pointer of the value that did not fit.
func decodeIssue(answer string, err error) Issue {
	is := Issue{Keyword: "type", Message: quote(err.Error())}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		is.Message = quote(fmt.Sprintf("%s does not fit the Go type %s", ute.Value, ute.Type))
		is.Path = quote(jsonvalue.PointerAt(answer, int(ute.Offset)))
	}
	return is
}
