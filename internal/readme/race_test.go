//go:build race

package readme

func init() { buildFlags = []string{"-race"} }
