import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  describeWithService,
  ALERT_RULES,
  ALERT_TESTS,
  alertRules,
  documentAnchors,
  familiesIn,
  sourcesUnder,
  testedOutcomes,
} from '@paygate/testing';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');

describe("the chart's alert rules, read as files", () => {
  const rules = alertRules();

  it('cover what an SRE is paged for: callbacks, lag, providers, readiness, the command port, the event store, money', () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([
      'PaygateAppNotReady',
      'PaygateCallbacksAbandoned',
      'PaygateCallbacksBackingUp',
      'PaygateCollectionsStuck',
      'PaygateCommandConnectionsRefused',
      'PaygateCommandsFailing',
      'PaygateConsumerLagGrowing',
      'PaygateEventStoreErrors',
      'PaygateEventStoreSlow',
      'PaygateEventsBehind',
      'PaygateMoneyOutUnconfirmed',
      'PaygateProviderErrors',
      'PaygateProviderSlow',
      'PaygateWalletOverdrawn',
    ]);
  });

  it('each name a runbook section of docs/operations.md that exists', () => {
    const anchors = documentAnchors();
    for (const rule of rules) {
      expect(rule.annotations.runbook_url).toBe(`docs/operations.md#${rule.alert.toLowerCase()}`);
      expect({ alert: rule.alert, documented: anchors.has(rule.alert.toLowerCase()) }).toEqual({
        alert: rule.alert,
        documented: true,
      });
    }
  });

  it('read only metrics the apps declare', () => {
    const sources = sourcesUnder(join(ROOT, 'libs'));
    for (const rule of rules)
      for (const family of familiesIn(rule.expr))
        expect({ alert: rule.alert, family, declared: sources.includes(`'${family}'`) }).toEqual({
          alert: rule.alert,
          family,
          declared: true,
        });
  });

  it('each have a promtool unit test that fires it and one that does not', () => {
    const outcomes = testedOutcomes();
    for (const rule of rules) {
      const { firing = 0, quiet = 0 } = outcomes.get(rule.alert) ?? {};
      expect({ alert: rule.alert, fires: firing > 0, staysQuiet: quiet > 0 }).toEqual({
        alert: rule.alert,
        fires: true,
        staysQuiet: true,
      });
    }
  });
});

describeWithService('promtool', "the chart's alert rules, checked by Prometheus's promtool", (promtool) => {
  it('are valid rules (promtool check rules)', async () => {
    const { stdout } = await run(promtool, ['check', 'rules', ALERT_RULES]);
    expect(stdout).toMatch(/SUCCESS: 14 rules found/);
  });

  it('fire and stay quiet as their unit tests say (promtool test rules)', async () => {
    const result = await run(promtool, ['test', 'rules', ALERT_TESTS]).then(
      ({ stdout }) => ({ ok: true, output: stdout }),
      (error: { stdout: string; stderr: string }) => ({ ok: false, output: `${error.stdout}${error.stderr}` }),
    );
    expect(result).toEqual({ ok: true, output: expect.stringContaining('SUCCESS') });
  });
});
