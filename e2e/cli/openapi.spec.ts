/**
 * `paygate openapi`: the API's OpenAPI document without a running gateway or a store, exactly
 * docs/openapi.json (what lint checks and the e2e suites validate answers against).
 */
import { readFileSync } from 'node:fs';
import { OPENAPI_DOCUMENT_PATH } from '@paygate/testing';
import { runCli } from './cli-test-setup';

describe('paygate openapi', () => {
  it('prints docs/openapi.json, needing no store', async () => {
    const run = await runCli(['openapi'], {});
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')));
  });

  it('refuses an option it does not have, in one line', async () => {
    const run = await runCli(['openapi', '--yaml'], {});
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^paygate: openapi: .*--yaml.*\n$/);
  });
});
