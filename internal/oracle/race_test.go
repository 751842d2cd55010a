//go:build race

package oracle_test

import "time"

func init() {
	maxCompile = 500 * time.Millisecond
	sampleEvery, minAccepted = 8, 990
}
