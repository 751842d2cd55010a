//go:build !race

package native_test

const raceEvery = 1
