// How numbers and calls are worded in the panel.
import type { Usage } from '../messages';

/** US dollars, with enough digits that a cheap turn is not "$0.00". */
export function formatCost(usd: number): string {
  if (!usd) return '$0';
  if (usd < 0.0001) return '<$0.0001';
  if (usd < 0.1) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The share of prompt tokens served from the provider's cache, as "79%"; '' when nothing was sent. */
export function cacheHit(u: Usage | undefined): string {
  const total = (u?.cache_hit_tokens ?? 0) + (u?.cache_miss_tokens ?? 0);
  if (!u || total === 0) return '';
  return `${Math.round((u.cache_hit_tokens / total) * 100)}%`;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || ms <= 0) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatAgo(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}

/**
 * A tool call in a few words, as the server's agent.DescribeCall words it
 * for events; used for calls read back from a saved session, which carry
 * only the name and the arguments.
 */
export function describeCall(name: string, args: string): string {
  let m: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(args);
    if (v && typeof v === 'object') m = v as Record<string, unknown>;
  } catch {
    // Arguments that are not JSON say nothing about the call.
  }
  let subject = '';
  for (const k of ['command', 'path', 'pattern', 'source', 'file_path']) {
    const s = m[k];
    if (typeof s === 'string' && s !== '') {
      subject = s;
      break;
    }
  }
  if (typeof m.destination === 'string' && subject) subject += ` → ${m.destination}`;
  subject = subject.split(/\s+/).filter(Boolean).join(' ');
  const r = [...subject];
  if (r.length > 80) subject = r.slice(0, 79).join('') + '…';
  return subject ? `${name} ${subject}` : name;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
