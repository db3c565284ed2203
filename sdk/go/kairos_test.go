package kairos_test

// The live tests run against the Kairos that scripts/with-kairos.mjs starts (KAIROS_URL,
// KAIROS_TOKEN): `npm run sdk:test` at the repository root, or `npm test`.

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	kairos "kairos.local/sdk/go"
)

func live(t *testing.T) (*kairos.Client, string, string) {
	t.Helper()
	u, token := os.Getenv("KAIROS_URL"), os.Getenv("KAIROS_TOKEN")
	if u == "" || token == "" {
		t.Fatal("KAIROS_URL and KAIROS_TOKEN must be set: run through scripts/with-kairos.mjs (npm run sdk:test)")
	}
	return kairos.NewClient(u, token), u, token
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func farJob(t *testing.T, c *kairos.Client, name string) *kairos.Job {
	t.Helper()
	job, err := c.CreateJob(ctxFor(t, 10*time.Second), kairos.CreateJobInput{
		Name:     name,
		Schedule: kairos.ScheduleInput{RunAt: kairos.Ptr(time.Now().Add(time.Hour))},
		Target:   kairos.JobTargetInput{Handler: kairos.Ptr("noop")},
	})
	if err != nil {
		t.Fatalf("createJob: %v", err)
	}
	return job
}

// triggerUntilSeen triggers the job until the watch delivers an event of one of the triggered
// executions: the server sets a subscription up after acknowledging the connection, so the first
// events may be published before it listens.
func triggerUntilSeen(t *testing.T, c *kairos.Client, w *kairos.Watch, jobID string, timeout time.Duration) kairos.ExecutionEvent {
	t.Helper()
	triggered := map[string]bool{}
	deadline := time.After(timeout)
	for {
		e, err := c.TriggerJob(ctxFor(t, 10*time.Second), jobID, nil)
		if err != nil {
			t.Fatalf("triggerJob: %v", err)
		}
		triggered[e.Id] = true
		wait := time.After(time.Second)
	read:
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					t.Fatalf("watch ended: %v", w.Err())
				}
				if triggered[ev.Execution.Id] {
					return ev
				}
			case <-wait:
				break read
			case <-deadline:
				t.Fatalf("no event of a triggered execution within %v", timeout)
			}
		}
	}
}

func TestCreateWatchSucceedAndPage(t *testing.T) {
	c, _, _ := live(t)
	job := farJob(t, c, "go-sdk-watch")
	if job.Status != kairos.JobStatusActive {
		t.Fatalf("status %s", job.Status)
	}
	w, err := c.WatchExecutions(ctxFor(t, 60*time.Second), kairos.WatchFilter{JobID: job.Id})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Close()
	ev := triggerUntilSeen(t, c, w, job.Id, 15*time.Second)
	for ev.Status != kairos.ExecutionStatusSucceeded {
		select {
		case next, ok := <-w.Events:
			if !ok {
				t.Fatalf("watch ended: %v", w.Err())
			}
			if next.Execution.Id == ev.Execution.Id {
				ev = next
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("execution %s did not succeed; last status %s", ev.Execution.Id, ev.Status)
		}
	}
	if len(ev.Execution.Attempts) != 1 || ev.Execution.Attempts[0].Outcome == nil || *ev.Execution.Attempts[0].Outcome != kairos.AttemptOutcomeSucceeded {
		t.Fatalf("attempts %+v", ev.Execution.Attempts)
	}
	w.Close()
	if w.Err() != nil {
		t.Fatalf("a closed watch has no error, got %v", w.Err())
	}

	for i := 0; i < 4; i++ {
		if _, err := c.TriggerJob(ctxFor(t, 10*time.Second), job.Id, json.RawMessage(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	var seen []kairos.Execution
	// AnyPhase: everything, as some of the runs just triggered may still be queued.
	for e, err := range c.ExecutionsAll(ctxFor(t, 30*time.Second), kairos.ExecutionFilter{JobId: &job.Id, Phase: kairos.Ptr(kairos.AnyPhase)}, 2) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, e)
	}
	if len(seen) < 5 {
		t.Fatalf("paged %d executions, want at least 5", len(seen))
	}
	ids := map[string]bool{}
	for _, e := range seen {
		if ids[e.Id] || e.JobId != job.Id {
			t.Fatalf("duplicate or foreign execution %s", e.Id)
		}
		ids[e.Id] = true
	}
	if !sort.SliceIsSorted(seen, func(i, j int) bool { return seen[i].ScheduledFor.After(seen[j].ScheduledFor) }) {
		t.Fatal("executions are not newest first")
	}
	got, err := c.Execution(ctxFor(t, 10*time.Second), ev.Execution.Id)
	if err != nil || got == nil || got.Status != kairos.ExecutionStatusSucceeded {
		t.Fatalf("execution: %+v %v", got, err)
	}
}

var upcoming = map[kairos.ExecutionStatus]bool{kairos.ExecutionStatusScheduled: true, kairos.ExecutionStatusQueued: true}

func TestExecutionsAllListsHistoryFirst(t *testing.T) {
	c, _, _ := live(t)
	ctx := ctxFor(t, 60*time.Second)
	job, err := c.CreateJob(ctx, kairos.CreateJobInput{
		Name:     "go-sdk-history-first",
		Schedule: kairos.ScheduleInput{IntervalSeconds: kairos.Ptr(2)},
		Target:   kairos.JobTargetInput{Handler: kairos.Ptr("noop")},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.DeleteJob(context.Background(), job.Id) })
	w, err := c.WatchExecutions(ctx, kairos.WatchFilter{JobID: job.Id, Statuses: []kairos.ExecutionStatus{kairos.ExecutionStatusSucceeded}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-w.Events:
		if !ok {
			t.Fatalf("watch ended: %v", w.Err())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no run of the job succeeded within 15 s")
	}
	w.Close()

	// As the API lists them, the occurrences materialised ahead of now come first.
	raw, err := c.Executions(ctx, kairos.Page{First: 1}, &kairos.ExecutionFilter{JobId: &job.Id})
	if err != nil || len(raw.Edges) != 1 || !upcoming[raw.Edges[0].Node.Status] {
		t.Fatalf("the API's newest is not upcoming: %+v %v", raw, err)
	}

	history := collect(t, c.ExecutionsAll(ctx, kairos.ExecutionFilter{JobId: &job.Id}, 2), 0)
	succeeded := false
	for _, e := range history {
		if upcoming[e.Status] {
			t.Fatalf("history lists a %s execution", e.Status)
		}
		succeeded = succeeded || e.Status == kairos.ExecutionStatusSucceeded
	}
	if !succeeded {
		t.Fatalf("history has no SUCCEEDED run: %d executions", len(history))
	}
	if !sort.SliceIsSorted(history, func(i, j int) bool { return history[i].ScheduledFor.After(history[j].ScheduledFor) }) {
		t.Fatal("history is not newest first")
	}

	soonest := collect(t, c.ExecutionsAll(ctx, kairos.ExecutionFilter{JobId: &job.Id, Phase: kairos.Ptr(kairos.ExecutionPhaseUpcoming)}, 2), 5)
	if len(soonest) < 2 {
		t.Fatalf("%d upcoming executions", len(soonest))
	}
	for _, e := range soonest {
		if !upcoming[e.Status] {
			t.Fatalf("upcoming lists a %s execution", e.Status)
		}
	}
	if !sort.SliceIsSorted(soonest, func(i, j int) bool { return soonest[i].ScheduledFor.Before(soonest[j].ScheduledFor) }) {
		t.Fatal("upcoming executions are not soonest first")
	}

	everything := collect(t, c.ExecutionsAll(ctx, kairos.ExecutionFilter{JobId: &job.Id, Phase: kairos.Ptr(kairos.AnyPhase)}, 2), 0)
	if len(everything) <= len(history) || !upcoming[everything[0].Status] {
		t.Fatalf("AnyPhase: %d executions (history %d), the first %s", len(everything), len(history), everything[0].Status)
	}
}

// collect drains seq, stopping after max items when max > 0, and fails the test on an error.
func collect(t *testing.T, seq func(func(kairos.Execution, error) bool), max int) []kairos.Execution {
	t.Helper()
	var got []kairos.Execution
	for e, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, e); max > 0 && len(got) == max {
			break
		}
	}
	return got
}

// fakePage is one `executions` answer of a fake server: nodes with these ids, in this order.
type fakePage struct {
	ids                  []string
	hasNext, hasPrevious bool
}

// fakeExecutions is a client of a server that answers each request with the next of pages
// (cursor "c-<id>" for each node) and returns the variables of every request it got.
func fakeExecutions(t *testing.T, pages ...fakePage) (*kairos.Client, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var sent []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Variables json.RawMessage `json:"variables"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("request body: %v", err)
		}
		mu.Lock()
		n := len(sent)
		sent = append(sent, string(req.Variables))
		mu.Unlock()
		if n >= len(pages) {
			t.Errorf("request %d, but only %d pages", n+1, len(pages))
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		p := pages[n]
		edges := []map[string]any{}
		for _, id := range p.ids {
			edges = append(edges, map[string]any{"cursor": "c-" + id, "node": map[string]any{"id": id}})
		}
		var start, end any
		if len(p.ids) > 0 {
			start, end = "c-"+p.ids[0], "c-"+p.ids[len(p.ids)-1]
		}
		pageInfo := map[string]any{"hasNextPage": p.hasNext, "hasPreviousPage": p.hasPrevious, "startCursor": start, "endCursor": end}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"executions": map[string]any{"edges": edges, "pageInfo": pageInfo}}})
	}))
	t.Cleanup(server.Close)
	return kairos.NewClient(server.URL, "t"), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), sent...)
	}
}

func idsOf(executions []kairos.Execution) string {
	ids := make([]string, len(executions))
	for i, e := range executions {
		ids[i] = e.Id
	}
	return strings.Join(ids, " ")
}

func TestExecutionsAllAsksForHistoryUnlessGivenAPhaseOrStatuses(t *testing.T) {
	ctx := ctxFor(t, 10*time.Second)
	job := "j1"
	c, sent := fakeExecutions(t, fakePage{ids: []string{"e3", "e2"}, hasNext: true}, fakePage{ids: []string{"e1"}})
	if got := idsOf(collect(t, c.ExecutionsAll(ctx, kairos.ExecutionFilter{JobId: &job}, 2), 0)); got != "e3 e2 e1" {
		t.Fatalf("listed %q", got)
	}
	want := []string{
		`{"first":2,"filter":{"jobId":"j1","phase":"HISTORY"}}`,
		`{"first":2,"after":"c-e2","filter":{"jobId":"j1","phase":"HISTORY"}}`,
	}
	if got := sent(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sent %v, want %v", got, want)
	}

	c, sent = fakeExecutions(t, fakePage{ids: []string{"e9"}})
	collect(t, c.ExecutionsAll(ctx, kairos.ExecutionFilter{Statuses: []kairos.ExecutionStatus{kairos.ExecutionStatusQueued}}, 0), 0)
	if got := sent(); len(got) != 1 || got[0] != `{"first":100,"filter":{"statuses":["QUEUED"]}}` {
		t.Fatalf("statuses without a phase: sent %v", got)
	}

	c, sent = fakeExecutions(t, fakePage{ids: []string{"e9"}})
	collect(t, c.ExecutionsAll(ctx, kairos.ExecutionFilter{Phase: kairos.Ptr(kairos.AnyPhase)}, 0), 0)
	if got := sent(); len(got) != 1 || got[0] != `{"first":100,"filter":{}}` {
		t.Fatalf("AnyPhase: sent %v", got)
	}
}

func TestExecutionsAllListsUpcomingSoonestFirst(t *testing.T) {
	// The server lists each page newest first; the last page of the list holds the soonest.
	c, sent := fakeExecutions(t,
		fakePage{ids: []string{"u2", "u1"}, hasPrevious: true},
		fakePage{ids: []string{"u4", "u3"}, hasPrevious: true},
		fakePage{ids: []string{"u5"}},
	)
	job := "j1"
	filter := kairos.ExecutionFilter{JobId: &job, Phase: kairos.Ptr(kairos.ExecutionPhaseUpcoming)}
	if got := idsOf(collect(t, c.ExecutionsAll(ctxFor(t, 10*time.Second), filter, 2), 0)); got != "u1 u2 u3 u4 u5" {
		t.Fatalf("listed %q", got)
	}
	want := []string{
		`{"last":2,"filter":{"jobId":"j1","phase":"UPCOMING"}}`,
		`{"last":2,"before":"c-u2","filter":{"jobId":"j1","phase":"UPCOMING"}}`,
		`{"last":2,"before":"c-u4","filter":{"jobId":"j1","phase":"UPCOMING"}}`,
	}
	if got := sent(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sent %v, want %v", got, want)
	}
}

func TestJobMethodsAndErrorCodes(t *testing.T) {
	c, u, _ := live(t)
	ctx := ctxFor(t, 30*time.Second)
	job, err := c.CreateJob(ctx, kairos.CreateJobInput{Name: "go-sdk-methods", Schedule: kairos.ScheduleInput{Cron: kairos.Ptr("0 9 * * 1-5"), Timezone: kairos.Ptr("Europe/Paris")}, Target: kairos.JobTargetInput{Handler: kairos.Ptr("noop")}, Description: kairos.Ptr("kept")})
	if err != nil {
		t.Fatal(err)
	}
	updated, err := c.UpdateJob(ctx, kairos.UpdateJobInput{Id: job.Id, Name: kairos.Ptr("go-sdk-methods-2")})
	if err != nil || updated.Name != "go-sdk-methods-2" || updated.Description == nil || *updated.Description != "kept" {
		t.Fatalf("update (omitted fields keep their value): %+v %v", updated, err)
	}
	if j, err := c.PauseJob(ctx, job.Id); err != nil || j.Status != kairos.JobStatusPaused {
		t.Fatalf("pause: %v", err)
	}
	if j, err := c.ResumeJob(ctx, job.Id); err != nil || j.Status != kairos.JobStatusActive {
		t.Fatalf("resume: %v", err)
	}
	var names []string
	for j, err := range c.JobsAll(ctx, kairos.JobFilter{NamePrefix: kairos.Ptr("go-sdk-methods")}, 1) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, j.Name)
	}
	if fmt.Sprint(names) != "[go-sdk-methods-2]" {
		t.Fatalf("jobsAll: %v", names)
	}
	if typ, err := c.NodeType(ctx, job.Id); err != nil || typ != "Job" {
		t.Fatalf("node: %q %v", typ, err)
	}
	times, err := c.PreviewSchedule(ctx, kairos.ScheduleInput{Cron: kairos.Ptr("0 9 * * 1-5"), Timezone: kairos.Ptr("Europe/Paris")}, 3)
	if err != nil || len(times) != 3 {
		t.Fatalf("preview: %v %v", times, err)
	}
	if id, err := c.DeleteJob(ctx, job.Id); err != nil || id != job.Id {
		t.Fatalf("delete: %v", err)
	}
	if j, err := c.Job(ctx, job.Id); err != nil || j != nil {
		t.Fatalf("a deleted job is nil, nil; got %+v %v", j, err)
	}

	_, err = c.PauseJob(ctx, job.Id)
	if !kairos.IsCode(err, kairos.CodeNotFound) {
		t.Fatalf("pause of a deleted job: want NOT_FOUND, got %v", err)
	}
	_, err = c.PreviewSchedule(ctx, kairos.ScheduleInput{Cron: kairos.Ptr("not a cron")}, 1)
	var kerr *kairos.Error
	if !errors.As(err, &kerr) || kerr.Code != kairos.CodeBadUserInput {
		t.Fatalf("bad cron: want BAD_USER_INPUT, got %v", err)
	}

	wrong := kairos.NewClient(u, "not-a-valid-token")
	if _, err := wrong.Viewer(ctx); !kairos.IsCode(err, kairos.CodeUnauthenticated) {
		t.Fatalf("wrong token over HTTP: want UNAUTHENTICATED, got %v", err)
	}
	if _, err := wrong.WatchExecutions(ctx, kairos.WatchFilter{}); !kairos.IsCode(err, kairos.CodeUnauthenticated) {
		t.Fatalf("wrong token over WebSocket: want UNAUTHENTICATED, got %v", err)
	}
	if _, err := kairos.NewClient("http://127.0.0.1:1/graphql", "t").Viewer(ctx); !kairos.IsCode(err, kairos.CodeNetworkError) {
		t.Fatalf("nothing listening: want NETWORK_ERROR, got %v", err)
	}
}

// A TCP proxy in front of Kairos whose connections the test cuts, as a network failure would.
type cutter struct {
	listener net.Listener
	mu       sync.Mutex
	conns    []net.Conn
}

func newCutter(t *testing.T, target string) *cutter {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutter{listener: l}
	go func() {
		for {
			down, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				down.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, down, up)
			p.mu.Unlock()
			go func() { io.Copy(up, down); up.Close(); down.Close() }()
			go func() { io.Copy(down, up); up.Close(); down.Close() }()
		}
	}()
	t.Cleanup(func() { l.Close(); p.cut() })
	return p
}

func (p *cutter) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	return n
}

func TestRotateWebhookSecretWithGraceAndRevoke(t *testing.T) {
	c, _, _ := live(t)
	ctx := ctxFor(t, 30*time.Second)
	first, err := c.RotateWebhookSecret(ctx)
	if err != nil || first == "" {
		t.Fatalf("rotate with the default grace: %q %v", first, err)
	}
	before := time.Now()
	second, expiresAt, err := c.RotateWebhookSecretWithGrace(ctx, 60)
	if err != nil || second == first || expiresAt == nil || expiresAt.Before(before.Add(59*time.Second)) || expiresAt.After(time.Now().Add(61*time.Second)) {
		t.Fatalf("rotate with 60 s of grace: %q %v %v", second, expiresAt, err)
	}
	// 0 is sent (no grace), not dropped for the default.
	if _, expiresAt, err := c.RotateWebhookSecretWithGrace(ctx, 0); err != nil || expiresAt != nil {
		t.Fatalf("rotate without a grace: %v %v", expiresAt, err)
	}
	if _, _, err := c.RotateWebhookSecretWithGrace(ctx, 604801); !kairos.IsCode(err, kairos.CodeBadUserInput) {
		t.Fatalf("a grace over 7 days: want BAD_USER_INPUT, got %v", err)
	}
	for range 2 {
		if err := c.RevokePreviousWebhookSecret(ctx); err != nil {
			t.Fatalf("revoke (twice: idempotent): %v", err)
		}
	}
}

func TestWatchReconnectsAfterADrop(t *testing.T) {
	c, u, token := live(t)
	target, _ := url.Parse(u)
	proxy := newCutter(t, target.Host)
	proxied := kairos.NewClient(fmt.Sprintf("http://%s%s", proxy.listener.Addr(), target.Path), token, kairos.WithReconnect(kairos.Reconnect{InitialDelay: 100 * time.Millisecond}))
	job := farJob(t, c, "go-sdk-reconnect")
	w, err := proxied.WatchExecutions(ctxFor(t, 60*time.Second), kairos.WatchFilter{JobID: job.Id, Statuses: []kairos.ExecutionStatus{kairos.ExecutionStatusSucceeded}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	triggerUntilSeen(t, c, w, job.Id, 15*time.Second)
	if n := proxy.cut(); n < 2 {
		t.Fatalf("the WebSocket did not go through the proxy (%d connections)", n)
	}
	if ev := triggerUntilSeen(t, c, w, job.Id, 20*time.Second); ev.Status != kairos.ExecutionStatusSucceeded {
		t.Fatalf("status filter: got %s", ev.Status)
	}
}

func TestVerifyWebhook(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := []byte(`{"executionId":"e1"}`)
	mac := hmac.New(sha256.New, []byte("secret"))
	fmt.Fprintf(mac, "%d.%s", at.Unix(), body)
	header := fmt.Sprintf("t=%d,v1=%s", at.Unix(), hex.EncodeToString(mac.Sum(nil)))
	cases := []struct {
		name   string
		body   []byte
		header string
		secret string
		now    time.Time
		want   bool
	}{
		{"valid", body, header, "secret", at.Add(time.Second), true},
		{"other body", append([]byte(nil), append(body, ' ')...), header, "secret", at, false},
		{"other secret", body, header, "other", at, false},
		{"stale", body, header, "secret", at.Add(301 * time.Second), false},
		{"malformed", body, "v1=abc", "secret", at, false},
	}
	for _, tc := range cases {
		if got := kairos.VerifyWebhook(tc.body, tc.header, tc.secret, 0, tc.now); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestErrorsCarryCodeAndDetails(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer kairos_key" {
			t.Errorf("authorization header %q", r.Header.Get("Authorization"))
		}
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"errors":[{"message":"Too many writes","extensions":{"code":"RATE_LIMITED","retryAfterSeconds":7}}]}`)
	}))
	defer server.Close()
	_, err := kairos.NewClient(server.URL, "kairos_key").TriggerJob(context.Background(), "j", nil)
	var kerr *kairos.Error
	if !errors.As(err, &kerr) || kerr.Code != kairos.CodeRateLimited || kerr.RetryAfterSeconds() != 7 || kerr.StatusCode != 429 {
		t.Fatalf("got %#v", err)
	}
}

func TestBackoffDoublesUpToItsCap(t *testing.T) {
	r := kairos.Reconnect{InitialDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for n, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		if got := r.Backoff(n); got != want*time.Millisecond {
			t.Errorf("attempt %d: %v", n, got)
		}
	}
}

// The README's Go example is examples/watch/main.go, verbatim; it runs until it prints a SUCCEEDED change.
func TestReadmeExampleRuns(t *testing.T) {
	live(t)
	source, err := os.ReadFile("examples/watch/main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(source)+"```") {
		t.Fatal("README.md's Go example is not examples/watch/main.go")
	}
	ctx := ctxFor(t, 60*time.Second)
	cmd := exec.CommandContext(ctx, "go", "run", "./examples/watch")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(out)
	var printed []string
	for lines.Scan() {
		printed = append(printed, lines.Text())
		if strings.HasSuffix(lines.Text(), "-> SUCCEEDED") {
			if !strings.HasPrefix(printed[0], "created ") {
				t.Fatalf("first line %q", printed[0])
			}
			return
		}
	}
	t.Fatalf("the example ended without a SUCCEEDED line: %q", printed)
}

func TestBulkCancelThenRetryOverAFilter(t *testing.T) {
	c, _, _ := live(t)
	ctx := ctxFor(t, 60*time.Second)
	payload := json.RawMessage(`{"ms":60000}`)
	job, err := c.CreateJob(ctx, kairos.CreateJobInput{
		Name:     "go-sdk-bulk",
		Schedule: kairos.ScheduleInput{RunAt: kairos.Ptr(time.Now().Add(time.Hour))},
		Target:   kairos.JobTargetInput{Handler: kairos.Ptr("sleep")},
		Payload:  &payload,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TriggerJob(ctx, job.Id, nil); err != nil {
		t.Fatal(err)
	}
	ofJob := kairos.ExecutionFilter{JobId: &job.Id}
	cancel, err := c.CancelExecutions(ctx, ofJob, "")
	if err != nil || cancel.Kind != kairos.BulkOperationKindCancel || cancel.Total != 1 {
		t.Fatalf("cancelExecutions: %+v %v", cancel, err)
	}
	readings := 0
	ended, err := c.WaitBulkOperation(ctx, cancel.Id, 100*time.Millisecond, func(*kairos.BulkOperation) { readings++ })
	if err != nil || ended.Status != kairos.BulkOperationStatusSucceeded || ended.Done != 1 || readings == 0 {
		t.Fatalf("cancel's end: %+v %v", ended, err)
	}
	key := fmt.Sprintf("go-sdk-bulk-%d", time.Now().UnixNano())
	cancelled := kairos.ExecutionFilter{JobId: &job.Id, Statuses: []kairos.ExecutionStatus{kairos.ExecutionStatusCancelled}}
	retry, err := c.RetryExecutions(ctx, cancelled, key)
	if err != nil || retry.OperationId != key || retry.Total != 1 {
		t.Fatalf("retryExecutions: %+v %v", retry, err)
	}
	if ended, err := c.WaitBulkOperation(ctx, retry.Id, 100*time.Millisecond, nil); err != nil || ended.Done != 1 {
		t.Fatalf("retry's end: %+v %v", ended, err)
	}
	if again, err := c.RetryExecutions(ctx, cancelled, key); err != nil || again.Id != retry.Id {
		t.Fatalf("the same operationId again: %+v %v", again, err)
	}
	// The job's change history, newest first: the repeated retry, which did nothing, recorded nothing.
	changes, err := c.Changes(ctx, kairos.Page{First: 10}, &kairos.ChangeFilter{JobId: &job.Id})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range changes.Edges {
		actions = append(actions, string(e.Node.Action))
	}
	if got := strings.Join(actions, ","); got != "RETRY_EXECUTIONS,CANCEL_EXECUTIONS,TRIGGER_JOB,CREATE_JOB" {
		t.Fatalf("the job's changes: %s", got)
	}
	// The retried run sleeps a minute: end it.
	if end, err := c.CancelExecutions(ctx, ofJob, ""); err == nil {
		_, _ = c.WaitBulkOperation(ctx, end.Id, 100*time.Millisecond, nil)
	}
}

func TestBackfillJobDryRunThenOnce(t *testing.T) {
	c, _, _ := live(t)
	ctx := ctxFor(t, 30*time.Second)
	job, err := c.CreateJob(ctx, kairos.CreateJobInput{
		Name:     "go-sdk-backfill",
		Schedule: kairos.ScheduleInput{Cron: kairos.Ptr("30 2 * * *"), Timezone: kairos.Ptr("Europe/Berlin")},
		Target:   kairos.JobTargetInput{Handler: kairos.Ptr("noop")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = c.DeleteJob(ctx, job.Id) }()
	from, to := time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC)
	dry, err := c.BackfillJob(ctx, job.Id, from, to, true)
	if err != nil || !dry.DryRun || dry.Created != 0 || dry.Existing != nil || len(dry.Instants) != 2 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	// 02:30 does not exist in Berlin on 29 March 2026: it fires at 03:00 CEST.
	if got := dry.Instants[1].Local; got != "2026-03-29T03:00:00.000+02:00" {
		t.Fatalf("the DST night's instant: %s", got)
	}
	done, err := c.BackfillJob(ctx, job.Id, from, to, false)
	if err != nil || done.Created != 2 || done.Existing == nil || *done.Existing != 0 {
		t.Fatalf("backfill: %+v %v", done, err)
	}
	again, err := c.BackfillJob(ctx, job.Id, from, to, false)
	if err != nil || again.Created != 0 || again.Existing == nil || *again.Existing != 2 {
		t.Fatalf("the same backfill again: %+v %v", again, err)
	}
}
