package enforce

// Kind is the output kind an answer was asked for, beyond one JSON value
// of the contract; a row says it ([Attempt.Kind], [WithKind]).
type Kind string

// KindElements: a JSON answer whose array's elements were delivered as
// they closed ([NewElements]).
const KindElements Kind = "elements"
