package wiretest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// Tree is a recursive contract.
type Tree struct {
	Name     string `json:"name"`
	Children []Tree `json:"children,omitempty"`
}

// Labels is a contract with a map.
type Labels struct {
	Labels map[string]string `json:"labels"`
}

// SchemaOf is T's contract (enforce.SchemaFor), failing t when T has
// none.
func SchemaOf[T any](t testing.TB) []byte {
	t.Helper()
	s, err := enforce.SchemaFor[T]()
	if err != nil {
		t.Fatal(err)
	}
	return s.JSON()
}

// Contracts are the contracts a native-schema test sends, by name:
// Weather, Tree and Labels, and by file name the JSON files in dir (an
// adapter's test reads providers/native's, ../native/testdata/contracts).
// It fails t when dir holds none.
func Contracts(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	contracts := map[string][]byte{
		"Weather": SchemaOf[Weather](t), "Tree": SchemaOf[Tree](t), "Labels": SchemaOf[Labels](t),
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no contracts in %s", dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		contracts[filepath.Base(f)] = b
	}
	return contracts
}
