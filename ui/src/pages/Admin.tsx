import { useState } from 'preact/hooks';
import { documents, type Role } from '../api/client.js';
import { Card, ConfirmButton, ErrorBanner, SecretOnce, When } from '../components.js';
import { useAction, useNow, useQuery } from '../hooks.js';
import { useSession } from '../session.js';

/** ADMIN only: API keys and the webhook signing secret. */
export function Admin() {
  const { client } = useSession();
  const now = useNow(10_000);
  const keys = useQuery(documents.ApiKeysDocument, {});
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('MEMBER');
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const create = useAction(
    () => client.createApiKey({ name: name.trim(), role }),
    (r) => {
      setSecret({ label: `API key “${name.trim()}”`, value: r.secret });
      setName('');
      keys.reload();
    },
  );
  const revoke = useAction((id: string) => client.revokeApiKey(id), keys.reload);
  const rotate = useAction(
    () => client.rotateWebhookSecret(),
    (secret) => setSecret({ label: 'New webhook signing secret', value: secret }),
  );

  return (
    <main class="page">
      {secret && <SecretOnce label={secret.label} secret={secret.value} onDismiss={() => setSecret(null)} />}
      <ErrorBanner error={keys.error ?? create.error ?? revoke.error ?? rotate.error} />
      <Card title="API keys">
        <form
          class="filters"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) void create.perform();
          }}
        >
          <input aria-label="Key name" placeholder="Name, e.g. ci deploys" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <select aria-label="Key role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            <option value="VIEWER">viewer</option>
            <option value="MEMBER">member</option>
            <option value="ADMIN">admin</option>
          </select>
          <button class="btn btn-primary" type="submit" disabled={!name.trim() || create.busy}>
            Create key
          </button>
        </form>
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Role</th>
                <th>Prefix</th>
                <th>Created</th>
                <th>Last used</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.data?.apiKeys.map((k) => (
                <tr key={k.id}>
                  <td class="strong">{k.name}</td>
                  <td>{k.role.toLowerCase()}</td>
                  <td class="mono">{k.prefix}…</td>
                  <td>
                    <When iso={k.createdAt} now={now} />
                  </td>
                  <td>
                    <When iso={k.lastUsedAt} now={now} />
                  </td>
                  <td>
                    <ConfirmButton label="Revoke" question="Revoke this key?" onConfirm={() => void revoke.perform(k.id)} />
                  </td>
                </tr>
              ))}
              {keys.data?.apiKeys.length === 0 && (
                <tr>
                  <td colSpan={6} class="muted empty">
                    No API keys.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </Card>
      <Card title="Webhook signing secret">
        <p class="muted">HTTP targets are signed with this secret (header X-Kairos-Signature). Rotating it signs every later attempt with the new one, and for a day with the old one too, so receivers can move to the new one meanwhile.</p>
        <ConfirmButton label="Rotate" question="Replace the secret? Receivers must be given the new one." busy={rotate.busy} onConfirm={() => void rotate.perform()} />
      </Card>
    </main>
  );
}
