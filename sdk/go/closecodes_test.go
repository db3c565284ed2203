package kairos

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gorilla/websocket"
)

// The close codes a watch ends on, and the drops it reconnects after. The table itself is compared
// with the TypeScript SDK's and the READMEs' by sdk/agreement.test.mjs.
func TestSocketErrorMapsCloseCodes(t *testing.T) {
	// The server's own refusals, pinned: a change here is a change of what callers see.
	for closeCode, want := range map[int]string{4401: CodeUnauthenticated, 4429: CodeQuotaExceeded, 4500: CodeInternalServerError} {
		if closeCodes[closeCode] != want {
			t.Errorf("close code %d maps to %q, want %q", closeCode, closeCodes[closeCode], want)
		}
	}
	for closeCode, want := range closeCodes {
		err := socketError(fmt.Errorf("read: %w", &websocket.CloseError{Code: closeCode, Text: "why"}))
		var kerr *Error
		if !errors.As(err, &kerr) || kerr.Code != want || kerr.Message != "why" || kerr.Details["closeCode"] != closeCode {
			t.Errorf("close code %d: got %#v, want code %s with the reason and the close code", closeCode, err, want)
		}
	}
	if err := socketError(&websocket.CloseError{Code: 4401}); err.(*Error).Message != "WebSocket closed with code 4401" {
		t.Errorf("a close without a reason: got message %q", err.(*Error).Message)
	}
	for _, drop := range []error{&websocket.CloseError{Code: 1006}, &websocket.CloseError{Code: 1001, Text: "Server shutting down"}, &websocket.CloseError{Code: 4408}, errors.New("connection reset")} {
		if !IsCode(socketError(drop), CodeNetworkError) {
			t.Errorf("%v: got %v, want a NETWORK_ERROR (a drop, reconnected after)", drop, socketError(drop))
		}
	}
}
