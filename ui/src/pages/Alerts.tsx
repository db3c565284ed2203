import { useState } from 'preact/hooks';
import { AlertSettingsDocument, AlertsDocument, CreateAlertChannelDocument, CreateAlertRuleDocument, DeleteAlertChannelDocument, DeleteAlertRuleDocument } from '../api/generated.js';
import { Card, ConfirmButton, ErrorBanner, Pager, StatusBadge, When, usePaging } from '../components.js';
import { useAction, useNow, useQuery } from '../hooks.js';
import { useSession } from '../session.js';

const PAGE_SIZE = 20;
type RuleKind = 'CONSECUTIVE_FAILURES' | 'SKIPPED' | 'OVERDUE';
const KIND_LABEL: Record<RuleKind, string> = {
  CONSECUTIVE_FAILURES: 'failures in a row',
  SKIPPED: 'skipped occurrence',
  OVERDUE: 'overdue (seconds)',
};

/** Alert channels (admins), rules (members edit) and the alerts raised, with their delivery. */
export function Alerts() {
  const { client, canWrite, isAdmin } = useSession();
  const now = useNow(10_000);
  const settings = useQuery(AlertSettingsDocument, { admin: isAdmin });
  const paging = usePaging(PAGE_SIZE);
  const alerts = useQuery(AlertsDocument, paging.page);
  const [channel, setChannel] = useState({ name: '', url: '', format: 'KAIROS' as 'KAIROS' | 'SLACK' });
  const [rule, setRule] = useState({ channelId: '', jobId: '', kind: 'CONSECUTIVE_FAILURES' as RuleKind, threshold: '3' });
  const createChannel = useAction(
    () => client.request(CreateAlertChannelDocument, { input: { name: channel.name.trim(), url: channel.url.trim(), format: channel.format } }),
    () => {
      setChannel({ name: '', url: '', format: 'KAIROS' });
      settings.reload();
    },
  );
  const deleteChannel = useAction((id: string) => client.request(DeleteAlertChannelDocument, { id }), settings.reload);
  const createRule = useAction(
    () =>
      client.request(CreateAlertRuleDocument, {
        input: {
          channelId: rule.channelId,
          jobId: rule.jobId.trim() || null,
          kind: rule.kind,
          threshold: rule.kind === 'SKIPPED' ? null : Number(rule.threshold),
        },
      }),
    settings.reload,
  );
  const deleteRule = useAction((id: string) => client.request(DeleteAlertRuleDocument, { id }), settings.reload);
  const channels = settings.data?.alertChannels ?? [];
  const channelName = (id: string) => channels.find((c) => c.id === id)?.name ?? id;

  return (
    <main class="page">
      <ErrorBanner error={settings.error ?? alerts.error ?? createChannel.error ?? deleteChannel.error ?? createRule.error ?? deleteRule.error} />
      {isAdmin && (
        <Card title="Alert channels">
          <p class="muted">Alerts are POSTed to these URLs, signed with the webhook signing secret like deliveries.</p>
          <form
            class="filters"
            onSubmit={(e) => {
              e.preventDefault();
              void createChannel.perform();
            }}
          >
            <input aria-label="Channel name" placeholder="Name, e.g. ops" value={channel.name} onInput={(e) => setChannel({ ...channel, name: e.currentTarget.value })} />
            <input aria-label="Channel URL" placeholder="https://…" value={channel.url} onInput={(e) => setChannel({ ...channel, url: e.currentTarget.value })} />
            <select aria-label="Channel format" value={channel.format} onChange={(e) => setChannel({ ...channel, format: e.currentTarget.value as 'KAIROS' | 'SLACK' })}>
              <option value="KAIROS">Kairos JSON</option>
              <option value="SLACK">Slack-compatible</option>
            </select>
            <button class="btn btn-primary" type="submit" disabled={!channel.name.trim() || !channel.url.trim() || createChannel.busy}>
              Add channel
            </button>
          </form>
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>URL</th>
                  <th>Format</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {channels.map((c) => (
                  <tr key={c.id}>
                    <td class="strong">{c.name}</td>
                    <td class="mono">{c.url}</td>
                    <td>{c.format.toLowerCase()}</td>
                    <td>
                      <ConfirmButton label="Delete" question="Delete this channel and its rules?" onConfirm={() => void deleteChannel.perform(c.id)} />
                    </td>
                  </tr>
                ))}
                {channels.length === 0 && (
                  <tr>
                    <td colSpan={4} class="muted empty">
                      No channels.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        </Card>
      )}
      <Card title="Alert rules">
        {canWrite && isAdmin && (
          <form
            class="filters"
            onSubmit={(e) => {
              e.preventDefault();
              void createRule.perform();
            }}
          >
            <select aria-label="Rule channel" value={rule.channelId} onChange={(e) => setRule({ ...rule, channelId: e.currentTarget.value })}>
              <option value="">Channel…</option>
              {channels.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
            <select aria-label="Rule kind" value={rule.kind} onChange={(e) => setRule({ ...rule, kind: e.currentTarget.value as RuleKind })}>
              {(Object.keys(KIND_LABEL) as RuleKind[]).map((k) => (
                <option key={k} value={k}>
                  {KIND_LABEL[k]}
                </option>
              ))}
            </select>
            {rule.kind !== 'SKIPPED' && (
              <input aria-label="Rule threshold" type="number" min={1} value={rule.threshold} onInput={(e) => setRule({ ...rule, threshold: e.currentTarget.value })} />
            )}
            <input aria-label="Rule job" placeholder="Job id (empty: every job)" value={rule.jobId} onInput={(e) => setRule({ ...rule, jobId: e.currentTarget.value })} />
            <button class="btn btn-primary" type="submit" disabled={!rule.channelId || createRule.busy}>
              Add rule
            </button>
          </form>
        )}
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th>When</th>
                <th>Threshold</th>
                <th>Job</th>
                <th>Channel</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {settings.data?.alertRules.map((r) => (
                <tr key={r.id}>
                  <td class="strong">{KIND_LABEL[r.kind]}</td>
                  <td>{r.kind === 'SKIPPED' ? '' : r.threshold}</td>
                  <td>{r.jobId ? <a href={`#/jobs/${r.jobId}`}>{r.jobId}</a> : <span class="muted">every job</span>}</td>
                  <td>{isAdmin ? channelName(r.channelId) : <span class="mono">{r.channelId}</span>}</td>
                  <td>{canWrite && <ConfirmButton label="Delete" question="Delete this rule?" onConfirm={() => void deleteRule.perform(r.id)} />}</td>
                </tr>
              ))}
              {settings.data?.alertRules.length === 0 && (
                <tr>
                  <td colSpan={5} class="muted empty">
                    No rules.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </Card>
      <Card title="Alerts raised" actions={<button class="btn btn-ghost" onClick={() => alerts.reload()}>Refresh</button>}>
        <div class="table-wrap">
          <table class="table" data-testid="alerts">
            <thead>
              <tr>
                <th>Raised</th>
                <th>State</th>
                <th>Job</th>
                <th>Reason</th>
                <th>Delivery</th>
              </tr>
            </thead>
            <tbody>
              {alerts.data?.alerts.edges.map(({ node: a }) => (
                <tr key={a.id}>
                  <td>
                    <When iso={a.raisedAt} now={now} />
                  </td>
                  <td>
                    <StatusBadge status={a.state} />
                  </td>
                  <td>
                    <a href={`#/jobs/${a.jobId}`}>{a.jobId}</a>
                  </td>
                  <td>{a.reason}</td>
                  <td title={a.delivery.error ?? ''}>
                    {a.delivery.status.toLowerCase()} ({a.delivery.attempts} {a.delivery.attempts === 1 ? 'attempt' : 'attempts'}
                    {a.delivery.statusCode ? `, ${a.delivery.statusCode}` : ''})
                  </td>
                </tr>
              ))}
              {alerts.data?.alerts.edges.length === 0 && (
                <tr>
                  <td colSpan={5} class="muted empty">
                    No alerts yet.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {alerts.data && (
          <Pager
            hasPrevious={alerts.data.alerts.pageInfo.hasPreviousPage}
            hasNext={alerts.data.alerts.pageInfo.hasNextPage}
            onPrevious={() => paging.previous(alerts.data!.alerts.pageInfo.startCursor ?? null)}
            onNext={() => paging.next(alerts.data!.alerts.pageInfo.endCursor ?? null)}
          />
        )}
      </Card>
    </main>
  );
}
