package kairos

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"time"

	"github.com/Khan/genqlient/graphql"
)

// Short names for the generated types a user handles most.
type (
	Job            = JobFields
	Execution      = ExecutionFields
	ExecutionEvent = ExecutionUpdatedExecutionUpdatedExecutionEvent
	ApiKey         = ApiKeyFields
	Viewer         = GetViewerViewer
	ExecutionStats = GetExecutionStatsExecutionStats
	ScheduledTime  = PreviewSchedulePreviewScheduleScheduledTime
	JobConnection  = JobsJobsJobConnection
	// ExecutionConnection is one page of executions; each edge's Node embeds an Execution.
	ExecutionConnection = ExecutionsExecutionsExecutionConnection
	// BulkOperation is a bulk retry or cancel (RetryExecutions, CancelExecutions) and its progress.
	BulkOperation = BulkOperationFields
	// BackfillResult is what BackfillJob created, or would create (a dry run).
	BackfillResult = BackfillJobBackfillJobBackfillResult
	// Change is one record of the change history: who changed what, when, each changed field before and after.
	Change = ChangeFields
	// ChangeConnection is one page of the change history; each edge's Node embeds a Change.
	ChangeConnection = ChangesChangesChangeConnection
)

// Client calls one Kairos deployment with one credential. It is safe for concurrent use.
type Client struct {
	gql        graphql.Client
	url        string
	credential string
	httpClient *http.Client
	reconnect  Reconnect
}

// Option changes a Client made by NewClient.
type Option func(*Client)

// WithHTTPClient sends requests (and opens subscriptions' WebSockets) through c: timeouts, proxies, TLS.
func WithHTTPClient(c *http.Client) Option { return func(k *Client) { k.httpClient = c } }

// WithReconnect sets how a subscription reconnects after its connection drops.
func WithReconnect(r Reconnect) Option { return func(k *Client) { k.reconnect = r } }

// NewClient talks to the GraphQL endpoint url (e.g. http://127.0.0.1:4000/graphql) with a JWT or
// an API key (both are sent as `Authorization: Bearer <credential>`).
func NewClient(url, credential string, options ...Option) *Client {
	c := &Client{url: url, credential: credential, httpClient: http.DefaultClient}
	for _, o := range options {
		o(c)
	}
	c.gql = graphql.NewClient(url, authDoer{c.httpClient, "Bearer " + credential})
	return c
}

type authDoer struct {
	client        *http.Client
	authorization string
}

func (d authDoer) Do(req *http.Request) (*http.Response, error) {
	req.Header.Set("Authorization", d.authorization)
	return d.client.Do(req)
}

// Ptr returns a pointer to v, for the optional fields of inputs: kairos.Ptr(10).
func Ptr[T any](v T) *T { return &v }

// Page selects a page of a connection; zero values are left out (the server's default is First 20).
type Page struct {
	First  int
	After  string
	Last   int
	Before string
}

func (p Page) args() (first *int, after *string, last *int, before *string) {
	if p.First > 0 {
		first = &p.First
	}
	if p.After != "" {
		after = &p.After
	}
	if p.Last > 0 {
		last = &p.Last
	}
	if p.Before != "" {
		before = &p.Before
	}
	return
}

// Viewer tells who the credential is: tenant, subject, role and quotas.
func (c *Client) Viewer(ctx context.Context) (*Viewer, error) {
	r, err := GetViewer(ctx, c.gql)
	if err != nil {
		return nil, asError(err)
	}
	return &r.Viewer, nil
}

// Job returns nil, nil when there is no such job in the caller's tenant.
func (c *Client) Job(ctx context.Context, id string) (*Job, error) {
	r, err := GetJob(ctx, c.gql, id)
	if err != nil || r.Job == nil {
		return nil, asError(err)
	}
	return &r.Job.JobFields, nil
}

// Jobs returns one page of jobs, newest first.
func (c *Client) Jobs(ctx context.Context, page Page, filter *JobFilter) (*JobConnection, error) {
	first, after, last, before := page.args()
	r, err := Jobs(ctx, c.gql, first, after, last, before, filter)
	if err != nil {
		return nil, asError(err)
	}
	return &r.Jobs, nil
}

// Changes returns one page of the tenant's change history, newest first: who changed what and when
// (secrets never shown). filter.JobId narrows it to one job's, also after the job was deleted. The
// changes of API keys and of the webhook secret are listed to ADMINs only.
func (c *Client) Changes(ctx context.Context, page Page, filter *ChangeFilter) (*ChangeConnection, error) {
	first, after, last, before := page.args()
	r, err := Changes(ctx, c.gql, first, after, last, before, filter)
	if err != nil {
		return nil, asError(err)
	}
	return &r.Changes, nil
}

// JobsAll iterates over every job matching filter, fetching pageSize (default 100) at a time.
// Iteration stops at the first error, which is yielded.
func (c *Client) JobsAll(ctx context.Context, filter JobFilter, pageSize int) iter.Seq2[Job, error] {
	return func(yield func(Job, error) bool) {
		page := Page{First: orDefault(pageSize, 100)}
		for {
			conn, err := c.Jobs(ctx, page, &filter)
			if err != nil {
				yield(Job{}, err)
				return
			}
			for _, e := range conn.Edges {
				if !yield(e.Node.JobFields, nil) {
					return
				}
			}
			if !conn.PageInfo.HasNextPage || conn.PageInfo.EndCursor == nil {
				return
			}
			page.After = *conn.PageInfo.EndCursor
		}
	}
}

// Execution returns nil, nil when there is no such execution in the caller's tenant.
func (c *Client) Execution(ctx context.Context, id string) (*Execution, error) {
	r, err := GetExecution(ctx, c.gql, id)
	if err != nil || r.Execution == nil {
		return nil, asError(err)
	}
	return &r.Execution.ExecutionFields, nil
}

// AnyPhase, given as ExecutionFilter.Phase (kairos.Ptr(kairos.AnyPhase)), asks for executions of
// every phase, as the API lists them without a phase: newest first, upcoming ones first. It tells
// ExecutionsAll not to pick HISTORY for you; it is not sent to the server.
const AnyPhase ExecutionPhase = ""

// Executions returns one page of executions, newest scheduledFor first, exactly as the API lists
// them: occurrences not started yet come first unless filter.Phase is ExecutionPhaseHistory.
// Page{Last: n} with Phase ExecutionPhaseUpcoming is the n soonest upcoming ones (still newest
// first). ExecutionsAll picks these for you.
func (c *Client) Executions(ctx context.Context, page Page, filter *ExecutionFilter) (*ExecutionConnection, error) {
	first, after, last, before := page.args()
	if filter != nil && filter.Phase != nil && *filter.Phase == AnyPhase {
		sent := *filter
		sent.Phase = nil
		filter = &sent
	}
	r, err := Executions(ctx, c.gql, first, after, last, before, filter)
	if err != nil {
		return nil, asError(err)
	}
	return &r.Executions, nil
}

// ExecutionsAll iterates over the executions matching filter, fetching pageSize (default 100) at a
// time. Without Phase and Statuses it lists history (ExecutionPhaseHistory: started or finished),
// newest first: a frequent job's upcoming occurrences would otherwise come before any run. Phase
// ExecutionPhaseUpcoming lists the ones not started yet, soonest first; Phase AnyPhase lists
// everything, newest first (upcoming ones first); Statuses without a Phase lists those statuses,
// newest first. Iteration stops at the first error, which is yielded.
func (c *Client) ExecutionsAll(ctx context.Context, filter ExecutionFilter, pageSize int) iter.Seq2[Execution, error] {
	if filter.Phase == nil && len(filter.Statuses) == 0 {
		filter.Phase = Ptr(ExecutionPhaseHistory)
	}
	size := orDefault(pageSize, 100)
	if filter.Phase != nil && *filter.Phase == ExecutionPhaseUpcoming {
		// The soonest are at the far end of the newest-first list: walk it backward, each page reversed.
		return func(yield func(Execution, error) bool) {
			page := Page{Last: size}
			for {
				conn, err := c.Executions(ctx, page, &filter)
				if err != nil {
					yield(Execution{}, err)
					return
				}
				for i := len(conn.Edges) - 1; i >= 0; i-- {
					if !yield(conn.Edges[i].Node.ExecutionFields, nil) {
						return
					}
				}
				if !conn.PageInfo.HasPreviousPage || conn.PageInfo.StartCursor == nil {
					return
				}
				page.Before = *conn.PageInfo.StartCursor
			}
		}
	}
	return func(yield func(Execution, error) bool) {
		page := Page{First: size}
		for {
			conn, err := c.Executions(ctx, page, &filter)
			if err != nil {
				yield(Execution{}, err)
				return
			}
			for _, e := range conn.Edges {
				if !yield(e.Node.ExecutionFields, nil) {
					return
				}
			}
			if !conn.PageInfo.HasNextPage || conn.PageInfo.EndCursor == nil {
				return
			}
			page.After = *conn.PageInfo.EndCursor
		}
	}
}

// ExecutionStats counts executions scheduled in [since, until) by status, with start-lag
// percentiles; until zero means now, jobID "" means every job.
func (c *Client) ExecutionStats(ctx context.Context, since, until time.Time, jobID string) (*ExecutionStats, error) {
	var u *time.Time
	if !until.IsZero() {
		u = &until
	}
	var j *string
	if jobID != "" {
		j = &jobID
	}
	r, err := GetExecutionStats(ctx, c.gql, since, u, j)
	if err != nil {
		return nil, asError(err)
	}
	return &r.ExecutionStats, nil
}

// NodeType returns what an id is ("Job", "Execution"), or "" when it is nothing in the caller's tenant.
func (c *Client) NodeType(ctx context.Context, id string) (string, error) {
	r, err := Node(ctx, c.gql, id)
	if err != nil || r.Node == nil {
		return "", asError(err)
	}
	if t := (*r.Node).GetTypename(); t != nil {
		return *t, nil
	}
	return "", nil
}

// PreviewSchedule returns the next count (default 5 when 0) occurrences of a schedule, creating nothing.
func (c *Client) PreviewSchedule(ctx context.Context, schedule ScheduleInput, count int) ([]ScheduledTime, error) {
	var n *int
	if count > 0 {
		n = &count
	}
	r, err := PreviewSchedule(ctx, c.gql, schedule, n)
	if err != nil {
		return nil, asError(err)
	}
	return r.PreviewSchedule, nil
}

// ApiKeys lists the tenant's API keys (ADMIN only).
func (c *Client) ApiKeys(ctx context.Context) ([]ApiKey, error) {
	r, err := ApiKeys(ctx, c.gql)
	if err != nil {
		return nil, asError(err)
	}
	keys := make([]ApiKey, len(r.ApiKeys))
	for i, k := range r.ApiKeys {
		keys[i] = k.ApiKeyFields
	}
	return keys, nil
}

// CreateJob creates a job (MEMBER or ADMIN).
func (c *Client) CreateJob(ctx context.Context, input CreateJobInput) (*Job, error) {
	r, err := CreateJob(ctx, c.gql, input)
	if err != nil {
		return nil, asError(err)
	}
	return &r.CreateJob.Job.JobFields, nil
}

// UpdateJob changes a job; nil fields keep their value.
func (c *Client) UpdateJob(ctx context.Context, input UpdateJobInput) (*Job, error) {
	r, err := UpdateJob(ctx, c.gql, input)
	if err != nil {
		return nil, asError(err)
	}
	return &r.UpdateJob.Job.JobFields, nil
}

// PauseJob stops new occurrences and cancels pending ones.
func (c *Client) PauseJob(ctx context.Context, id string) (*Job, error) {
	r, err := PauseJob(ctx, c.gql, id)
	if err != nil {
		return nil, asError(err)
	}
	return &r.PauseJob.Job.JobFields, nil
}

// ResumeJob picks the schedule up again from now.
func (c *Client) ResumeJob(ctx context.Context, id string) (*Job, error) {
	r, err := ResumeJob(ctx, c.gql, id)
	if err != nil {
		return nil, asError(err)
	}
	return &r.ResumeJob.Job.JobFields, nil
}

// DeleteJob deletes a job (its pending executions are cancelled, its history kept) and returns its id.
func (c *Client) DeleteJob(ctx context.Context, id string) (string, error) {
	r, err := DeleteJob(ctx, c.gql, id)
	if err != nil {
		return "", asError(err)
	}
	return r.DeleteJob.DeletedJobId, nil
}

// TriggerJob runs a job now as a MANUAL execution; a non-nil payload replaces the job's for this run.
func (c *Client) TriggerJob(ctx context.Context, id string, payload json.RawMessage) (*Execution, error) {
	var p *json.RawMessage
	if payload != nil {
		p = &payload
	}
	r, err := TriggerJob(ctx, c.gql, id, p)
	if err != nil {
		return nil, asError(err)
	}
	return &r.TriggerJob.Execution.ExecutionFields, nil
}

// BackfillJob creates the job's past occurrences in [from, to) as BACKFILL executions, paced; an
// occurrence that has an execution already is left alone (Existing), so calling again creates
// nothing. With dryRun it returns the instants only. More than the server's BACKFILL_MAX_OCCURRENCES
// is BAD_USER_INPUT (maxOccurrences); more than the tenant's waiting room QUOTA_EXCEEDED.
func (c *Client) BackfillJob(ctx context.Context, id string, from, to time.Time, dryRun bool) (*BackfillResult, error) {
	r, err := BackfillJob(ctx, c.gql, id, from, to, &dryRun)
	if err != nil {
		return nil, asError(err)
	}
	return &r.BackfillJob, nil
}

// CancelExecution cancels an execution; a running attempt is aborted on its worker.
func (c *Client) CancelExecution(ctx context.Context, id string) (*Execution, error) {
	r, err := CancelExecution(ctx, c.gql, id)
	if err != nil {
		return nil, asError(err)
	}
	return &r.CancelExecution.Execution.ExecutionFields, nil
}

// RetryExecution queues a FAILED or CANCELLED execution again.
func (c *Client) RetryExecution(ctx context.Context, id string) (*Execution, error) {
	r, err := RetryExecution(ctx, c.gql, id)
	if err != nil {
		return nil, asError(err)
	}
	return &r.RetryExecution.Execution.ExecutionFields, nil
}

// RetryExecutions retries, in the background, the FAILED (the default) or CANCELLED executions
// filter matches now (at most the server's BULK_MAX_EXECUTIONS, else BAD_USER_INPUT). The same
// operationID ("" for none) again returns the same operation and does nothing twice.
func (c *Client) RetryExecutions(ctx context.Context, filter ExecutionFilter, operationID string) (*BulkOperation, error) {
	r, err := RetryExecutions(ctx, c.gql, filter, optional(operationID))
	if err != nil {
		return nil, asError(err)
	}
	return &r.RetryExecutions.BulkOperationFields, nil
}

// CancelExecutions cancels, in the background, the waiting and running executions filter matches
// now; as RetryExecutions otherwise.
func (c *Client) CancelExecutions(ctx context.Context, filter ExecutionFilter, operationID string) (*BulkOperation, error) {
	r, err := CancelExecutions(ctx, c.gql, filter, optional(operationID))
	if err != nil {
		return nil, asError(err)
	}
	return &r.CancelExecutions.BulkOperationFields, nil
}

// BulkOperation returns a bulk operation of the tenant, or nil for another tenant's or a missing one.
func (c *Client) BulkOperation(ctx context.Context, id string) (*BulkOperation, error) {
	r, err := GetBulkOperation(ctx, c.gql, id)
	if err != nil {
		return nil, asError(err)
	}
	if r.BulkOperation == nil {
		return nil, nil
	}
	return &r.BulkOperation.BulkOperationFields, nil
}

// WaitBulkOperation reads the operation every interval until it has ended (SUCCEEDED or FAILED),
// calling progress (if not nil) with each reading, and returns the last one.
func (c *Client) WaitBulkOperation(ctx context.Context, id string, interval time.Duration, progress func(*BulkOperation)) (*BulkOperation, error) {
	for {
		op, err := c.BulkOperation(ctx, id)
		if err != nil {
			return nil, err
		}
		if op == nil {
			return nil, &Error{Code: CodeNotFound, Message: "bulk operation " + id + " was not found"}
		}
		if progress != nil {
			progress(op)
		}
		if op.Status != BulkOperationStatusRunning {
			return op, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
	}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// CreateApiKey makes an API key (ADMIN only); its secret is returned this once.
func (c *Client) CreateApiKey(ctx context.Context, name string, role Role) (key *ApiKey, secret string, err error) {
	r, err := CreateApiKey(ctx, c.gql, name, role)
	if err != nil {
		return nil, "", asError(err)
	}
	return &r.CreateApiKey.ApiKey.ApiKeyFields, r.CreateApiKey.Secret, nil
}

// RevokeApiKey revokes an API key (ADMIN only).
func (c *Client) RevokeApiKey(ctx context.Context, id string) (*ApiKey, error) {
	r, err := RevokeApiKey(ctx, c.gql, id)
	if err != nil {
		return nil, asError(err)
	}
	return &r.RevokeApiKey.ApiKeyFields, nil
}

// RotateWebhookSecret replaces the tenant's webhook signing secret and returns it, once (ADMIN only).
// The replaced secret keeps signing deliveries, beside the new one, for the server's default grace
// (a day); see [Client.RotateWebhookSecretWithGrace].
func (c *Client) RotateWebhookSecret(ctx context.Context) (string, error) {
	r, err := RotateWebhookSecret(ctx, c.gql, nil)
	if err != nil {
		return "", asError(err)
	}
	return r.RotateWebhookSecret.Secret, nil
}

// RotateWebhookSecretWithGrace is [Client.RotateWebhookSecret] with the grace given: the replaced
// secret keeps signing deliveries for gracePeriodSeconds (0, none, to 604800, 7 days), until the
// time returned (nil for 0).
func (c *Client) RotateWebhookSecretWithGrace(ctx context.Context, gracePeriodSeconds int) (secret string, previousSecretExpiresAt *time.Time, err error) {
	r, err := RotateWebhookSecret(ctx, c.gql, &gracePeriodSeconds)
	if err != nil {
		return "", nil, asError(err)
	}
	return r.RotateWebhookSecret.Secret, r.RotateWebhookSecret.PreviousSecretExpiresAt, nil
}

// RevokePreviousWebhookSecret ends the grace of the secret the last rotation replaced, at once
// (ADMIN only); doing it again changes nothing.
func (c *Client) RevokePreviousWebhookSecret(ctx context.Context) error {
	_, err := RevokePreviousWebhookSecret(ctx, c.gql)
	return asError(err)
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}
