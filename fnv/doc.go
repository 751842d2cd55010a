// Package fnv computes the 32-bit FNV-1a hash of a string.
//
// enforcer uses it to join a ledger row to the corrective message it
// produced and to the event that announced it: the row, the message and the
// event all carry Hex32a of the exact message text.
//
//	h := fnv.Hex32a("Your answer did not match the output contract.")
//
// Unlike hash/fnv it works on a string directly, so hashing allocates
// nothing (Sum32a) or only the 8-byte result (Hex32a).
package fnv
