package events

// ErrorKind classifies a failed model call ([ModelRetry].ErrorKind, and
// agent.ProviderError's Kind). This file is its one home: the kinds, the
// words a client shows for each, which are worth retrying, and how an
// HTTP status maps to one. The vocabulary is open: a producer may record
// other kinds, which Describe shows as a generic failure.
type ErrorKind string

// The error kinds a producer should use.
const (
	KindRateLimit   ErrorKind = "rate_limit"
	KindOverloaded  ErrorKind = "overloaded"
	KindServerError ErrorKind = "server_error"
	KindTimeout     ErrorKind = "timeout"
	KindConnection  ErrorKind = "connection"
	KindBadRequest  ErrorKind = "bad_request"
	KindAuth        ErrorKind = "auth"
	KindUnknown     ErrorKind = "unknown"
)

// KindForStatus maps an HTTP status to an error kind, for adapters: 429
// is a rate limit, 503 and 529 overload, 408 and 504 a timeout, 401 and
// 403 auth, other 5xx a server error, other 4xx a bad request. Anything
// else, including a status outside 100..599 that a client library let
// through, is KindUnknown.
func KindForStatus(status int) ErrorKind {
	switch {
	case status < 100 || status > 599:
		return KindUnknown
	case status == 429:
		return KindRateLimit
	case status == 529 || status == 503:
		return KindOverloaded
	case status == 408 || status == 504:
		return KindTimeout
	case status == 401 || status == 403:
		return KindAuth
	case status >= 500:
		return KindServerError
	case status >= 400:
		return KindBadRequest
	}
	return KindUnknown
}

// Retryable reports whether a call that failed with k may succeed when
// made again: rate limits, overload, server errors, timeouts and lost
// connections. Never a bad request, an auth failure or an unknown kind.
func (k ErrorKind) Retryable() bool {
	switch k {
	case KindRateLimit, KindOverloaded, KindServerError, KindTimeout, KindConnection:
		return true
	}
	return false
}

// words is what a client shows for k. A provider's own message is never
// shown: a kind outside the vocabulary reads as a generic failure.
func (k ErrorKind) words() string {
	switch k {
	case KindRateLimit:
		return "rate limited"
	case KindOverloaded:
		return "provider overloaded"
	case KindServerError:
		return "provider error"
	case KindTimeout:
		return "timed out"
	case KindConnection:
		return "connection lost"
	}
	return "model call failed"
}
