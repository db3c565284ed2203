// Covers: src/metrics/apiFamilies.ts, src/metrics/connectionFamilies.ts, src/metrics/executionFamilies.ts, src/metrics/operationLabels.ts,
// src/metrics/schedulerFamilies.ts
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { KairosMetrics } from '../../src/metrics/kairosMetrics.js';
import { familyOf, metricNamesIn, parseExposition, total } from '../support/metricsText.js';

interface Panel {
  title: string;
  targets: { expr: string }[];
}
interface Rule {
  alert: string;
  expr: string;
  for?: string;
}

/** Every family of the registry, name → type (histograms answer for their _bucket, _sum and _count series). */
async function registryFamilies(): Promise<Map<string, string>> {
  const metrics = new KairosMetrics({ tenantLabel: false });
  return new Map((await metrics.registry.getMetricsAsJSON()).map((m) => [m.name, String(m.type)]));
}

const dashboard = JSON.parse(readFileSync('deploy/grafana/kairos.json', 'utf8')) as { uid: string; panels: Panel[] };
const alerts = parse(readFileSync('deploy/prometheus/alerts.yml', 'utf8')) as { groups: { name: string; rules: Rule[] }[] };

describe('the Grafana dashboard and the Prometheus alert rules', () => {
  it("dashboard: every panel queries metrics, and every metric it names is one of the registry's families", async () => {
    const families = await registryFamilies();
    expect(dashboard.uid).toBe('kairos');
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(15);
    const unknown: string[] = [];
    for (const panel of dashboard.panels) {
      expect(panel.targets.length).toBeGreaterThan(0);
      for (const { expr } of panel.targets) {
        const names = metricNamesIn(expr);
        expect(names.length).toBeGreaterThan(0);
        for (const name of names) if (!familyOf(name, families)) unknown.push(`${panel.title}: ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it("alerts: the five rules exist, each with a duration, and name only the registry's metrics", async () => {
    const families = await registryFamilies();
    const rules = alerts.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'KairosFailureRateHigh',
      'KairosNoLeader',
      'KairosQueueGrowing',
      'KairosStartLagHigh',
      'KairosSweepBehind',
    ]);
    const unknown: string[] = [];
    for (const rule of rules) {
      expect(rule.for).toMatch(/^\d+[smh]$/);
      const names = metricNamesIn(rule.expr);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) if (!familyOf(name, families)) unknown.push(`${rule.alert}: ${name}`);
      // Parentheses and brackets balance (promtool is not available to parse the expression).
      for (const [open, close] of [
        ['(', ')'],
        ['[', ']'],
        ['{', '}'],
      ])
        expect(rule.expr.split(open).length).toBe(rule.expr.split(close).length);
    }
    expect(unknown).toEqual([]);
  });

  it('the cross-check itself refuses a name the registry does not have', async () => {
    const families = await registryFamilies();
    expect(familyOf('kairos_attempt_duration_seconds_bucket', families)).toBe('kairos_attempt_duration_seconds');
    expect(familyOf('kairos_attempts_total', families)).toBe('kairos_attempts_total');
    expect(familyOf('kairos_attempts_total_bucket', families)).toBeNull();
    expect(familyOf('kairos_no_such_metric', families)).toBeNull();
    expect(metricNamesIn('sum(rate(kairos_x_total{status="kairos_not_a_name"}[5m]))')).toEqual(['kairos_x_total']);
  });
});

describe('KairosMetrics labels', () => {
  it('has no tenant label unless asked for, and then on the per-execution families', async () => {
    const plain = new KairosMetrics({ tenantLabel: false });
    plain.executionFinished('SUCCEEDED', 'SCHEDULE', 'acme');
    plain.attemptEnded('FAILED', 'IO_BOUND', 'acme', 12);
    plain.quotaRefused('rate', 'acme');
    const plainText = (await plain.exposition()).body;
    expect(plainText).not.toContain('acme');
    expect(total(parseExposition(plainText), 'kairos_executions_finished_total', { status: 'SUCCEEDED', trigger: 'SCHEDULE' })).toBe(1);

    const labelled = new KairosMetrics({ tenantLabel: true });
    labelled.executionFinished('FAILED', undefined, 'acme');
    labelled.quotaRefused('max_jobs', 'acme');
    const scrape = parseExposition((await labelled.exposition()).body);
    expect(total(scrape, 'kairos_executions_finished_total', { status: 'FAILED', trigger: 'UNKNOWN', tenant: 'acme' })).toBe(1);
    expect(total(scrape, 'kairos_quota_refusals_total', { kind: 'max_jobs', tenant: 'acme' })).toBe(1);
  });

  it('bounds client-chosen operation names: odd ones and those past 200 distinct names become "other"', async () => {
    const metrics = new KairosMetrics({ tenantLabel: false });
    for (let i = 0; i < 250; i++) metrics.operation(`Op${i}`, 'query', 'none', 1);
    metrics.operation('not a name!', 'query', 'none', 1);
    metrics.operation(null, 'mutation', 'BAD_USER_INPUT', 1);
    const scrape = parseExposition((await metrics.exposition()).body);
    const names = new Set(scrape.samples.filter((s) => s.name === 'kairos_graphql_operations_total').map((s) => s.labels.operation));
    expect(names.size).toBe(202);
    expect(total(scrape, 'kairos_graphql_operations_total', { operation: 'other' })).toBe(51);
    expect(total(scrape, 'kairos_graphql_operations_total', { operation: 'anonymous', code: 'BAD_USER_INPUT' })).toBe(1);
    expect(total(scrape, 'kairos_graphql_operation_duration_seconds_count')).toBe(252);
  });

  it('counts unauthenticated and invalid operations under fixed labels that never take a name slot', async () => {
    const metrics = new KairosMetrics({ tenantLabel: false });
    for (let i = 0; i < 250; i++) metrics.unnamedOperation('unauthenticated', 'query', 'UNAUTHENTICATED', 1);
    metrics.unnamedOperation('invalid', 'unknown', 'GRAPHQL_VALIDATION_FAILED', 1);
    // A client cannot pass its operation off as one of the fixed labels either.
    for (const name of ['unauthenticated', 'invalid', 'anonymous', 'other']) metrics.operation(name, 'query', 'none', 1);
    for (let i = 0; i < 200; i++) metrics.operation(`Op${i}`, 'query', 'none', 1);
    const scrape = parseExposition((await metrics.exposition()).body);
    expect(total(scrape, 'kairos_graphql_operations_total', { operation: 'unauthenticated' })).toBe(250);
    expect(total(scrape, 'kairos_graphql_operations_total', { operation: 'invalid', code: 'GRAPHQL_VALIDATION_FAILED' })).toBe(1);
    expect(total(scrape, 'kairos_graphql_operations_total', { operation: 'other' })).toBe(4);
    // All 200 slots were still free for the real names.
    expect(total(scrape, 'kairos_graphql_operations_total', { operation: 'Op199' })).toBe(1);
  });

  it('keeps each registry to itself (two in one process do not share counts)', async () => {
    const a = new KairosMetrics({ tenantLabel: false });
    const b = new KairosMetrics({ tenantLabel: false });
    a.tookOver();
    expect(total(parseExposition((await a.exposition()).body), 'kairos_takeovers_total')).toBe(1);
    expect(total(parseExposition((await b.exposition()).body), 'kairos_takeovers_total')).toBe(0);
  });
});
