//go:build race

package modules_test

func init() { raceFlag = []string{"-race"} }
