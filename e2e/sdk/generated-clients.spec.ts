import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { InProcessPaygate } from '@paygate/standalone';
import { describeWithService, PaygateClient, TEST_ADMIN_TOKEN } from '@paygate/testing';
import { startTestPaygate } from '../standalone/test-paygate';

/**
 * What a merchant on another language gets from the served document: openapi-generator (the
 * 7.x CLI, from Maven Central through scripts/openapi-generator.sh) makes typescript-fetch,
 * python and java clients of `/openapi.json` with no flag at all; each holds every operation,
 * compiles, and runs a mobile money collection to COMPLETED against the gateway (docs/api.md,
 * "Generating a client", has the same commands).
 */

// The first run downloads the generator and the Java client's dependencies; later ones take about a minute.
jest.setTimeout(300_000);

const ROOT = resolve(__dirname, '../..');
const GENERATOR = join(ROOT, 'scripts/openapi-generator.sh');
const GENERATORS = ['typescript-fetch', 'python', 'java'] as const;
type Generator = (typeof GENERATORS)[number];

interface Run {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** A child process, asynchronously: the gateway it talks to runs in this process's event loop. */
function run(command: string, args: string[], cwd?: string): Promise<Run> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, MAVEN_OPTS: '-XX:TieredStopAtLevel=1' } },
      (error, stdout, stderr) => done({ ok: !error, stdout, stderr }),
    );
  });
}

function succeeded(what: string, result: Run): Run {
  if (!result.ok) throw new Error(`${what} failed:\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`);
  return result;
}

/** The last line a flow printed, as JSON. */
const flowResult = (result: Run) =>
  JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null') as Record<string, unknown>;

/** Every file under `dir` whose name ends with `suffix`, its text. */
function sources(dir: string, suffix: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
}

const snakeCase = (id: string) => id.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The flow each client runs: providers, initialize, confirm, then reads until a final status; it prints one JSON line.
 */
const TS_FLOW = `import { CollectionsApi, Configuration, PaymentOptionsApi } from './index';

declare const process: { argv: string[] };
const [baseUrl, publicKey, secretKey] = process.argv.slice(2);
const configuration = new Configuration({ basePath: baseUrl, apiKey: (name: string) => (name === 'public-key' ? publicKey : secretKey) });
const collections = new CollectionsApi(configuration);

async function main(): Promise<void> {
  const providers = await new PaymentOptionsApi(configuration).listPaymentProviders({ currency: 'UGX' });
  const initialized = await collections.initializeCollection({
    initializeCollectionDto: {
      merchantReference: 'auto',
      transactionMethod: 'MOBILE_MONEY',
      providerCode: 'mtn_momo_ug',
      currency: 'UGX',
      amount: 81000,
      msisdn: '256772000001',
      customerName: 'Jane Doe',
    },
  });
  const reference = initialized.data.internalReference;
  const confirmed = await collections.confirmCollection({ confirmCollectionDto: { internalReference: reference } });
  let read = await collections.getCollection({ internalReference: reference });
  for (let tries = 0; read.data.transactionStatus === 'PENDING' && tries < 120; tries++) {
    await new Promise((wake) => setTimeout(wake, 250));
    read = await collections.getCollection({ internalReference: reference });
  }
  console.log(
    JSON.stringify({
      providers: providers.data.paymentProviders.map((provider) => provider.providerCode),
      initialized: initialized.data.transactionStatus,
      reference,
      confirmed: confirmed.code,
      final: read.data.transactionStatus,
      createdAt: read.data.createdAt instanceof Date,
    }),
  );
}
main().catch((error: unknown) => {
  console.error(error);
  throw error;
});
`;

const PYTHON_FLOW = `import datetime, json, sys, time
import openapi_client
from openapi_client.models import CollectionDetailsDto, ConfirmCollectionDto, InitializeCollectionDto

base_url, public_key, secret_key = sys.argv[1:4]
configuration = openapi_client.Configuration(host=base_url, api_key={"public-key": public_key, "secret-key": secret_key})
with openapi_client.ApiClient(configuration) as client:
    providers = openapi_client.PaymentOptionsApi(client).list_payment_providers(currency="UGX")
    collections = openapi_client.CollectionsApi(client)
    initialized = collections.initialize_collection(InitializeCollectionDto(
        merchant_reference="auto", transaction_method="MOBILE_MONEY", provider_code="mtn_momo_ug",
        currency="UGX", amount=81000, msisdn="256772000001", customer_name="Jane Doe"))
    reference = initialized.data.internal_reference
    confirmed = collections.confirm_collection(ConfirmCollectionDto(internal_reference=reference))
    read = collections.get_collection(reference)
    for _ in range(120):
        if read.data.transaction_status != "PENDING":
            break
        time.sleep(0.25)
        read = collections.get_collection(reference)
    print(json.dumps({
        "providers": [provider.provider_code for provider in providers.data.payment_providers],
        "initialized": initialized.data.transaction_status,
        "reference": reference,
        "confirmed": confirmed.code,
        "final": read.data.transaction_status,
        "model": type(read.data).__name__,
        "createdAt": isinstance(read.data.created_at, datetime.datetime),
    }))
`;

const JAVA_FLOW = `package paygate.flow;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.stream.Collectors;
import org.openapitools.client.ApiClient;
import org.openapitools.client.api.CollectionsApi;
import org.openapitools.client.api.PaymentOptionsApi;
import org.openapitools.client.auth.ApiKeyAuth;
import org.openapitools.client.model.*;

public class Flow {
  public static void main(String[] args) throws Exception {
    ApiClient client = new ApiClient();
    client.setBasePath(args[0]);
    ((ApiKeyAuth) client.getAuthentication("public-key")).setApiKey(args[1]);
    ((ApiKeyAuth) client.getAuthentication("secret-key")).setApiKey(args[2]);
    ListPaymentProviders200Response providers = new PaymentOptionsApi(client).listPaymentProviders(null, "UGX", null);
    CollectionsApi collections = new CollectionsApi(client);
    InitializeCollection202Response initialized = collections.initializeCollection(new InitializeCollectionDto()
        .merchantReference("auto").transactionMethod(InitializeCollectionDto.TransactionMethodEnum.MOBILE_MONEY)
        .providerCode("mtn_momo_ug").currency("UGX").amount(new BigDecimal(81000)).msisdn("256772000001").customerName("Jane Doe"), null);
    String reference = initialized.getData().getInternalReference();
    ConfirmCollection202Response confirmed = collections.confirmCollection(new ConfirmCollectionDto().internalReference(reference), null);
    GetCollection200Response read = collections.getCollection(reference, null);
    for (int tries = 0; "PENDING".equals(read.getData().getTransactionStatus().getValue()) && tries < 120; tries++) {
      Thread.sleep(250);
      read = collections.getCollection(reference, null);
    }
    String codes = providers.getData().getPaymentProviders().stream().map(p -> "\\"" + p.getProviderCode() + "\\"").collect(Collectors.joining(","));
    OffsetDateTime created = read.getData().getCreatedAt();
    System.out.println("{\\"providers\\":[" + codes + "],\\"initialized\\":\\"" + initialized.getData().getTransactionStatus().getValue()
        + "\\",\\"reference\\":\\"" + reference + "\\",\\"confirmed\\":" + confirmed.getCode().getValue()
        + ",\\"final\\":\\"" + read.getData().getTransactionStatus().getValue() + "\\",\\"createdAt\\":" + (created != null) + "}");
  }
}
`;

describeWithService('client-generators', 'clients that openapi-generator makes of the served document', () => {
  const work = mkdtempSync(join(tmpdir(), 'paygate-generated-clients-'));
  const out = (generator: Generator) => join(work, generator);
  let paygate: InProcessPaygate;
  let keys: [string, string];
  let operationIds: string[];
  let eventModels: string[];
  const generated = {} as Record<Generator, Run>;

  beforeAll(async () => {
    // The sandbox answers quickly so a collection completes within a few reads.
    paygate = await startTestPaygate({
      SANDBOX_LATENCY_MS: '50',
    });
    const { merchant } = await PaygateClient.withNewMerchant(
      paygate.url,
      TEST_ADMIN_TOKEN,
      'Generated clients merchant',
    );
    keys = [merchant.publicKey, merchant.secretKey];
    const document = (await (await fetch(`${paygate.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
      webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
    };
    operationIds = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    eventModels = Object.values(document.webhooks).map((item) =>
      item.post.requestBody.content['application/json'].schema.$ref.split('/').pop()!,
    );
    succeeded('scripts/openapi-generator.sh fetch', await run('bash', [GENERATOR, 'fetch']));
    // Exactly the documented command, no option: what a merchant types.
    const runs = await Promise.all(
      GENERATORS.map((generator) =>
        run('bash', [
          GENERATOR,
          'generate',
          '-i',
          `${paygate.url}/openapi.json`,
          '-g',
          generator,
          '-o',
          out(generator),
        ]),
      ),
    );
    GENERATORS.forEach((generator, index) => (generated[generator] = runs[index]));
  });

  afterAll(async () => {
    await paygate?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it.each(GENERATORS)('generates the %s client with no flag and no validation error', (generator) => {
    const { ok, stdout, stderr } = generated[generator];
    expect({
      ok,
      refused: `${stdout}\n${stderr}`.match(/.*(SpecValidationException|\[main\] ERROR|Exception in thread).*/g),
    }).toEqual({
      ok: true,
      refused: null,
    });
  });

  it('puts every operation of the document in each client, and every callback body as a model a receiver parses it with', () => {
    expect(operationIds.length).toBeGreaterThanOrEqual(16);
    expect(eventModels).toHaveLength(12);
    const missing = (code: string, names: string[], name: (id: string) => RegExp) =>
      names.filter((id) => !name(id).test(code));
    expect({
      'typescript-fetch': missing(
        sources(join(out('typescript-fetch'), 'apis'), '.ts'),
        operationIds,
        (id) => new RegExp(`async ${id}\\(`),
      ),
      python: missing(
        sources(join(out('python'), 'openapi_client/api'), '.py'),
        operationIds,
        (id) => new RegExp(`def ${snakeCase(id)}\\(`),
      ),
      java: missing(
        sources(join(out('java'), 'src/main/java/org/openapitools/client/api'), '.java'),
        operationIds,
        (id) => new RegExp(`public \\S+ ${id}\\(`),
      ),
    }).toEqual({ 'typescript-fetch': [], python: [], java: [] });
    // The webhooks are x-internal (Paygate calls them, not the client): their bodies are models.
    expect({
      'typescript-fetch': missing(
        sources(join(out('typescript-fetch'), 'models'), '.ts'),
        eventModels,
        (name) => new RegExp(`export interface ${name} \\{`),
      ),
      python: missing(
        sources(join(out('python'), 'openapi_client/models'), '.py'),
        eventModels,
        (name) => new RegExp(`class ${name}\\(BaseModel\\)`),
      ),
      java: missing(
        sources(join(out('java'), 'src/main/java/org/openapitools/client/model'), '.java'),
        eventModels,
        (name) => new RegExp(`public class ${name} \\{`),
      ),
    }).toEqual({ 'typescript-fetch': [], python: [], java: [] });
  });

  const expectCompleted = (result: Record<string, unknown>) =>
    expect(result).toMatchObject({
      providers: expect.arrayContaining(['mtn_momo_ug']),
      initialized: 'PENDING',
      reference: expect.stringMatching(/^PG[0-9A-Z]{24}$/),
      confirmed: 202,
      final: 'COMPLETED',
      createdAt: true,
    });

  it('compiles the TypeScript client under strict and runs a collection to COMPLETED with it', async () => {
    const dir = out('typescript-fetch');
    writeFileSync(join(dir, 'flow.ts'), TS_FLOW);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2020',
          module: 'commonjs',
          lib: ['ES2020', 'DOM'],
          types: [],
          outDir: 'dist',
          skipLibCheck: false,
        },
        include: ['**/*.ts'],
        exclude: ['dist'],
      }),
    );
    const compiled = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir]);
    expect(compiled.stdout).toBe('');
    succeeded('tsc --strict', compiled);
    expectCompleted(
      flowResult(
        succeeded(
          'the TypeScript flow',
          await run(process.execPath, [join(dir, 'dist/flow.js'), paygate.url, ...keys]),
        ),
      ),
    );
  });

  it('imports the Python client, whose models deserialize the answers of a collection run to COMPLETED', async () => {
    const dir = out('python');
    writeFileSync(join(dir, 'flow.py'), PYTHON_FLOW);
    const result = flowResult(
      succeeded('the Python flow', await run('python3', ['flow.py', paygate.url, ...keys], dir)),
    );
    expectCompleted(result);
    expect(result.model).toBe('CollectionDetailsDto');
  });

  it('compiles the Java client with Maven and runs a collection to COMPLETED with it', async () => {
    const dir = out('java');
    const flowDir = join(dir, 'src/main/java/paygate/flow');
    await run('mkdir', ['-p', flowDir]);
    writeFileSync(join(flowDir, 'Flow.java'), JAVA_FLOW);
    succeeded(
      'mvn compile',
      await run('mvn', ['-q', '-B', 'compile', 'dependency:build-classpath', '-Dmdep.outputFile=classpath.txt'], dir),
    );
    const classpath = `${join(dir, 'target/classes')}:${readFileSync(join(dir, 'classpath.txt'), 'utf8').trim()}`;
    expectCompleted(
      flowResult(
        succeeded(
          'the Java flow',
          await run('java', ['-XX:TieredStopAtLevel=1', '-cp', classpath, 'paygate.flow.Flow', paygate.url, ...keys]),
        ),
      ),
    );
  });
});
