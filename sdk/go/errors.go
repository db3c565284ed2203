package kairos

import (
	"errors"
	"fmt"

	"github.com/Khan/genqlient/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// The codes Kairos puts in a GraphQL error's extensions.code, plus CodeNetworkError for a request
// that got no GraphQL answer.
const (
	CodeUnauthenticated     = "UNAUTHENTICATED"
	CodeForbidden           = "FORBIDDEN"
	CodeNotFound            = "NOT_FOUND"
	CodeBadUserInput        = "BAD_USER_INPUT"
	CodeQuotaExceeded       = "QUOTA_EXCEEDED"
	CodeRateLimited         = "RATE_LIMITED"
	CodeConflict            = "CONFLICT"
	CodeInternalServerError = "INTERNAL_SERVER_ERROR"
	CodeNetworkError        = "NETWORK_ERROR"
)

// Error is every failure a Client method returns: Code tells them apart, Details holds the error's
// other extensions (retryAfterSeconds for RATE_LIMITED, maxJobs for QUOTA_EXCEEDED, field for
// BAD_USER_INPUT). Get it with errors.As, or test a code with [IsCode].
type Error struct {
	Code    string
	Message string
	Details map[string]any
	// StatusCode is the HTTP status when the server answered with one other than 200 (429 for RATE_LIMITED).
	StatusCode int
	// Path of the field that failed, when known.
	Path  []string
	cause error
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func (e *Error) Unwrap() error { return e.cause }

// RetryAfterSeconds is the wait the server asks for before a retry of a RATE_LIMITED request (0 when none).
func (e *Error) RetryAfterSeconds() float64 {
	if v, ok := e.Details["retryAfterSeconds"].(float64); ok {
		return v
	}
	return 0
}

// IsCode tells whether err is a Kairos *Error with this code.
func IsCode(err error, code string) bool {
	var kerr *Error
	return errors.As(err, &kerr) && kerr.Code == code
}

// asError turns what genqlient returns (gqlerror.List, *graphql.HTTPError, a transport error) into an *Error.
func asError(err error) error {
	if err == nil {
		return nil
	}
	var kerr *Error
	if errors.As(err, &kerr) {
		return kerr
	}
	var httpErr *graphql.HTTPError
	if errors.As(err, &httpErr) {
		if len(httpErr.Response.Errors) > 0 && httpErr.Response.Errors[0].Extensions != nil {
			e := fromGraphQLErrors(httpErr.Response.Errors)
			e.StatusCode = httpErr.StatusCode
			return e
		}
		return &Error{Code: CodeNetworkError, Message: fmt.Sprintf("Kairos answered HTTP %d without a GraphQL error", httpErr.StatusCode), StatusCode: httpErr.StatusCode, cause: err}
	}
	var list gqlerror.List
	if errors.As(err, &list) && len(list) > 0 {
		return fromGraphQLErrors(list)
	}
	return &Error{Code: CodeNetworkError, Message: err.Error(), cause: err}
}

func fromGraphQLErrors(list gqlerror.List) *Error {
	first := list[0]
	details := map[string]any{}
	code := CodeInternalServerError
	for k, v := range first.Extensions {
		if k == "code" {
			if s, ok := v.(string); ok {
				code = s
			}
			continue
		}
		details[k] = v
	}
	var path []string
	for _, p := range first.Path {
		path = append(path, fmt.Sprint(p))
	}
	return &Error{Code: code, Message: first.Message, Details: details, Path: path, cause: list}
}
