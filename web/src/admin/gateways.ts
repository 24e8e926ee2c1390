import { el } from '../dashboard/panel';
import type { AdminApi, Gateway } from '../model/admin-api';
import { clear, field, messageOf, place } from './parts';

/**
 * The gateways of the admin screen: the organization's machine clients with their last batch and
 * state; register one (its client id, secret and token URL shown this once), revoke one (asked first).
 */
export async function showGateways(api: AdminApi, gatewaysPanel: HTMLElement): Promise<void> {
  const status = el('p', { className: 'hint', id: 'admin-gateways-status' }, 'Loading…');
  status.setAttribute('role', 'status');
  const list = el('ul', { className: 'admin-list', id: 'admin-gateway-list' });
  const secret = el('div', { id: 'admin-gateway-secret', hidden: true });
  const nameInput = field('Gateway name', '', '/name', () => undefined, { hint: 'Say, its site' });
  const register = el('button', { type: 'submit', textContent: 'Register gateway' });
  const form = el(
    'form',
    { id: 'admin-gateway-form', noValidate: true },
    nameInput,
    el('div', { className: 'actions' }, register),
  );
  const summary = el('div', { className: 'error summary', hidden: true });
  form.append(summary);
  gatewaysPanel.replaceChildren(el('h2', { id: 'admin-gateways-h' }, 'Gateways'), status, list, form, secret);

  /**
   * One gateway a line, so it fits a phone: name, client id, registered, last batch and state (times in UTC, named).
   */
  const draw = (gateways: readonly Gateway[]) => {
    list.replaceChildren(
      ...gateways.map((g) => {
        const revoke = el('button', {
          type: 'button',
          className: 'secondary',
          textContent: `Revoke ${g.name}`,
          hidden: g.revokedAt !== null,
        });
        revoke.addEventListener('click', () => void revokeGateway(g));
        const state = g.revokedAt ? `revoked ${utc(g.revokedAt)}` : 'active';
        return el(
          'li',
          {},
          el('span', { className: 'name' }, g.name),
          el('code', {}, g.clientId),
          el(
            'span',
            { className: 'gateway-state' },
            `registered ${utc(g.createdAt)} · last batch ${g.lastUsedAt ? utc(g.lastUsedAt) : 'never'} · ${state}`,
          ),
          revoke,
        );
      }),
    );
  };
  const reload = async () => {
    try {
      const gateways = await api.gateways();
      draw(gateways);
      status.textContent =
        gateways.length === 0
          ? 'No gateway registered yet.'
          : `${gateways.filter((g) => g.revokedAt === null).length} active.`;
    } catch (e) {
      status.textContent = messageOf(e);
    }
  };
  async function revokeGateway(g: Gateway): Promise<void> {
    if (!window.confirm(`Revoke ${g.name}? Its tokens are refused from now on.`)) return;
    try {
      await api.revoke(g.clientId);
      await reload();
    } catch (e) {
      status.textContent = messageOf(e);
    }
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      clear(form, summary);
      const name = (nameInput.querySelector('input') as HTMLInputElement).value;
      try {
        const made = await api.register(name);
        secret.hidden = false;
        secret.replaceChildren(
          el(
            'p',
            {},
            el('strong', {}, `Registered ${made.name}. `),
            'Give the gateway these now: the secret is never shown again.',
          ),
          el(
            'dl',
            {},
            el('dt', {}, 'Client id'),
            el('dd', {}, el('code', {}, made.clientId)),
            el('dt', {}, 'Client secret'),
            el('dd', {}, el('code', { id: 'admin-gateway-secret-value' }, made.clientSecret)),
            el('dt', {}, 'Token URL'),
            el('dd', {}, el('code', {}, made.tokenUrl)),
          ),
        );
        await reload();
      } catch (e) {
        place(form, summary, e);
      }
    })();
  });
  await reload();
}

/** `2026-11-28 11:02 UTC`. */
const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
