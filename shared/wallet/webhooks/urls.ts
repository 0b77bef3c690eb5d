import { bareAddress, classifyAddress, isAllowedAddress, isIpLiteral } from './addresses';

/**
 * Endpoint URL rules, checked when an endpoint is created (the address check at delivery is in
 * shared/wallet/webhooks/http.ts and runs on every attempt, whatever was checked here).
 *  - http or https, no credentials in the URL, no fragment, at most 2,048 characters;
 *  - live endpoints: https only, and neither an IP literal outside public unicast nor a
 *    `localhost` name (a name that resolves to a private address is caught at delivery);
 *  - sandbox endpoints: no IP literal that no setting could ever deliver to (link-local and
 *    metadata, CGNAT, multicast...): only public, loopback and private literals, for local receivers.
 */

export const MAX_URL_LENGTH = 2048;

export type UrlProblem = { ok: false; reason: string };

export function checkEndpointUrl(raw: string, options: { livemode: boolean }): { ok: true; url: URL } | UrlProblem {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must be an http(s) URL' };
  if (options.livemode && url.protocol !== 'https:') return { ok: false, reason: 'must be https for a live endpoint' };
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  if (url.hash) return { ok: false, reason: 'must not carry a fragment' };
  if (!url.hostname) return { ok: false, reason: 'must name a host' };
  if (options.livemode) {
    // `LOCALHOST.` is localhost: a trailing dot names the same host.
    const host = url.hostname.toLowerCase().replace(/\.+$/, '');
    // WHATWG parsing has already normalised 0x7f.1, 2130706433 and the like to dotted quads.
    if (isIpLiteral(host)) {
      const kind = classifyAddress(bareAddress(host));
      if (kind !== 'public') return { ok: false, reason: `must not point at a ${kind.replace('_', '-')} address` };
    }
    if (host === 'localhost' || host.endsWith('.localhost')) return { ok: false, reason: 'must not point at localhost' };
  } else if (isIpLiteral(url.hostname)) {
    const kind = classifyAddress(bareAddress(url.hostname));
    // Anything some setting could open for a sandbox endpoint is accepted here; delivery applies the setting.
    if (!isAllowedAddress(kind, { livemode: false, sandboxTargets: 'private' })) return { ok: false, reason: `must not point at a ${kind.replace('_', '-')} address` };
  }
  return { ok: true, url };
}
