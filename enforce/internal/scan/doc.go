// Package scan is enforce's incremental judge without repairs: a
// [Scanner] steps an answer byte by byte as it arrives, as a JSON
// parser would, and gives an early verdict at the byte that dooms it —
// a syntax error, a value of the wrong kind, a member the plan
// refuses, a value that closed failing a subschema its path decides —
// checking values by the fast path as they end, and keeps the answer so
// far for Partial. Watching an array ([Scanner.Watch]), it delivers the
// array's elements as they close, from the bytes it steps anyway. A
// [Host] (enforce's Schema) writes every verdict and judges the whole
// answer at Close. It knows nothing of stages, issues or repairs.
package scan
