// Package label is the machinery of enforce's choice contracts
// (enforce.Choice, enforce.MultiLabel): a [Set] of labels checked and
// told apart in any case, the schemas of the label and of the object
// form, the near-miss of a label and the answer it mends, the words a
// prompt and a corrective message say of the labels, and a [Stream]
// that finds, as an answer arrives, the first byte after which it can be
// no label. It knows nothing of stages, issues or the ledger: enforce
// judges and writes those.
package label
