// Package jsonvalue reads JSON text for enforce: a strict parser into
// the tree gojsonschema walks (map[string]any, []any, string,
// json.Number, bool, nil), a decoder into Go values that gives
// encoding/json's results faster, exact decimals, canonical numbers,
// JSON Pointers, and the form of a syntax error (what the repeat limit
// compares). It knows nothing of schemas or the ledger.
package jsonvalue
