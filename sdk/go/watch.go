package kairos

// The executionUpdated subscription over the graphql-ws protocol ("graphql-transport-ws"), on
// gorilla/websocket. genqlient's own WebSocket client does not reconnect, and its Close fails on a
// connection that has already dropped, so this file carries the few messages the protocol needs:
// connection_init/connection_ack, subscribe, next/error/complete, ping/pong. The query and the
// decoding of its payload are genqlient's (ExecutionUpdated_Operation, ExecutionUpdatedResponse).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Reconnect says how a Watch reconnects after its connection drops. Zero values take the defaults.
type Reconnect struct {
	// First delay, doubled per failed attempt with up to 50 % random jitter. Default 500 ms.
	InitialDelay time.Duration
	// Largest delay. Default 30 s.
	MaxDelay time.Duration
	// Failed attempts in a row before the Watch ends with a NETWORK_ERROR. 0 means no limit.
	MaxAttempts int
}

// Backoff is the wait before reconnection attempt n (0-based), without its jitter.
func (r Reconnect) Backoff(n int) time.Duration {
	d := r.InitialDelay
	if d <= 0 {
		d = 500 * time.Millisecond
	}
	limit := r.MaxDelay
	if limit <= 0 {
		limit = 30 * time.Second
	}
	for i := 0; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// WatchFilter narrows a watch to one job and/or some statuses; zero values watch everything.
type WatchFilter struct {
	JobID    string
	Statuses []ExecutionStatus
}

// Watch is a live executionUpdated subscription. Range over Events; it is closed when the watch
// ends (its context is done, Close was called, or the server refused it), and Err then says why.
type Watch struct {
	// Events delivers status changes in the order the server sends them.
	Events <-chan ExecutionEvent
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// Err is nil after a Close or a cancelled context, else the *Error that ended the watch
// (UNAUTHENTICATED when the token expired, NETWORK_ERROR when reconnecting gave up). Valid once Events is closed.
func (w *Watch) Err() error {
	<-w.done
	return w.err
}

// Close ends the watch and waits until its connection is closed.
func (w *Watch) Close() {
	w.cancel()
	<-w.done
}

// WatchExecutions subscribes to the tenant's execution status changes. It returns once the
// server has accepted the connection, so a bad credential is an UNAUTHENTICATED error here. After
// a dropped connection it reconnects with backoff and subscribes again; events published while it
// was disconnected are not replayed.
func (c *Client) WatchExecutions(ctx context.Context, filter WatchFilter) (*Watch, error) {
	variables := map[string]any{}
	if filter.JobID != "" {
		variables["jobId"] = filter.JobID
	}
	if len(filter.Statuses) > 0 {
		variables["statuses"] = filter.Statuses
	}
	ctx, cancel := context.WithCancel(ctx)
	conn, err := c.subscribe(ctx, variables)
	if err != nil {
		cancel()
		return nil, err
	}
	events := make(chan ExecutionEvent)
	w := &Watch{Events: events, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer close(events)
		defer cancel()
		failures := 0
		for {
			err := conn.pump(ctx, events)
			if ctx.Err() != nil {
				return
			}
			var kerr *Error
			if errors.As(err, &kerr) && kerr.Code != CodeNetworkError {
				w.err = err
				return
			}
			// Dropped: reconnect with backoff until it works, a fatal answer, or too many failures.
			for {
				if c.reconnect.MaxAttempts > 0 && failures >= c.reconnect.MaxAttempts {
					w.err = err
					return
				}
				delay := c.reconnect.Backoff(failures)
				delay += time.Duration(rand.Float64() * 0.5 * float64(delay))
				failures++
				select {
				case <-ctx.Done():
					return
				case <-time.After(delay):
				}
				conn, err = c.subscribe(ctx, variables)
				if err == nil {
					failures = 0
					break
				}
				if ctx.Err() != nil {
					return
				}
				if errors.As(err, &kerr) && kerr.Code != CodeNetworkError {
					w.err = err
					return
				}
			}
		}
	}()
	return w, nil
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// wsConn is one graphql-ws connection carrying one subscription (id "1").
type wsConn struct {
	conn    *websocket.Conn
	writeMu sync.Mutex
}

func (w *wsConn) write(m any) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	_ = w.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return w.conn.WriteJSON(m)
}

// subscribe connects, authenticates and subscribes, within 10 s.
func (c *Client) subscribe(ctx context.Context, variables map[string]any) (*wsConn, error) {
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 10 * time.Second}
	if t, ok := c.httpClient.Transport.(*http.Transport); ok && t != nil {
		dialer.Proxy, dialer.TLSClientConfig = t.Proxy, t.TLSClientConfig
	}
	url := "ws" + strings.TrimPrefix(c.url, "http")
	conn, _, err := dialer.DialContext(ctx, url, nil)
	if err != nil {
		return nil, &Error{Code: CodeNetworkError, Message: fmt.Sprintf("could not open the subscription WebSocket at %s: %v", url, err), cause: err}
	}
	w := &wsConn{conn: conn}
	fail := func(err error) (*wsConn, error) {
		conn.Close()
		return nil, socketError(err)
	}
	init, _ := json.Marshal(map[string]string{"authorization": "Bearer " + c.credential})
	if err := w.write(wsMessage{Type: "connection_init", Payload: init}); err != nil {
		return fail(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		var m wsMessage
		if err := conn.ReadJSON(&m); err != nil {
			return fail(err)
		}
		if m.Type == "connection_ack" {
			break
		}
	}
	_ = conn.SetReadDeadline(time.Time{})
	payload, _ := json.Marshal(map[string]any{"operationName": "ExecutionUpdated", "query": ExecutionUpdated_Operation, "variables": variables})
	if err := w.write(wsMessage{ID: "1", Type: "subscribe", Payload: payload}); err != nil {
		return fail(err)
	}
	return w, nil
}

// pump delivers the subscription's events until the connection ends, and closes it. It returns
// nil when ctx ended it, an *Error otherwise (NETWORK_ERROR for a drop worth reconnecting after).
func (w *wsConn) pump(ctx context.Context, events chan<- ExecutionEvent) error {
	stop := context.AfterFunc(ctx, func() {
		_ = w.write(wsMessage{ID: "1", Type: "complete"})
		w.writeMu.Lock()
		_ = w.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		w.writeMu.Unlock()
		w.conn.Close()
	})
	defer stop()
	defer w.conn.Close()
	for {
		var m wsMessage
		if err := w.conn.ReadJSON(&m); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return socketError(err)
		}
		switch m.Type {
		case "ping":
			_ = w.write(wsMessage{Type: "pong"})
		case "next":
			var r struct {
				Data   *ExecutionUpdatedResponse `json:"data"`
				Errors gqlerror.List             `json:"errors"`
			}
			if err := json.Unmarshal(m.Payload, &r); err != nil {
				return &Error{Code: CodeInternalServerError, Message: "undecodable subscription event: " + err.Error(), cause: err}
			}
			if len(r.Errors) > 0 {
				return fromGraphQLErrors(r.Errors)
			}
			if r.Data == nil {
				continue
			}
			select {
			case events <- r.Data.ExecutionUpdated:
			case <-ctx.Done():
				return nil
			}
		case "error":
			var list gqlerror.List
			if err := json.Unmarshal(m.Payload, &list); err != nil || len(list) == 0 {
				return &Error{Code: CodeInternalServerError, Message: "the server refused the subscription"}
			}
			return fromGraphQLErrors(list)
		case "complete":
			return &Error{Code: CodeNetworkError, Message: "the server completed the subscription"}
		}
	}
}

// socketError classifies a connection failure: a close code of closeCodes is the server's refusal
// and ends a watch (4401 bad or expired credential, 4429 past a socket cap...); anything else is a
// drop (NETWORK_ERROR), reconnected after.
func socketError(err error) error {
	var closeErr *websocket.CloseError
	if errors.As(err, &closeErr) {
		if code := closeCodeError(closeErr.Code); code != CodeNetworkError {
			message := closeErr.Text
			if message == "" {
				message = fmt.Sprintf("WebSocket closed with code %d", closeErr.Code)
			}
			return &Error{Code: code, Message: message, Details: map[string]any{"closeCode": closeErr.Code}, cause: err}
		}
	}
	return &Error{Code: CodeNetworkError, Message: "subscription connection lost: " + err.Error(), cause: err}
}
