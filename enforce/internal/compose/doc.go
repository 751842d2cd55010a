// Package compose builds the JSON Schema of enforce's union contracts
// (enforce.Union) from its members' schemas: each nested as the value of
// a member named for it, their definitions gathered into one "$defs"
// and renamed where two differ, the descriptions set, what cannot be
// nested refused. It knows nothing of stages, issues or the ledger.
package compose
