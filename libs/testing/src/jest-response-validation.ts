/**
 * jest setupFilesAfterEnv: in the end-to-end suites (e2e/), every answer of the API that a test
 * receives through fetch is checked against docs/openapi.json (ResponseValidator), and so is every
 * callback a CallbackReceiver gets (its `webhooks`). A refused answer rejects that fetch; both fail
 * the test in afterEach, should the test have caught the error.
 */
import { installResponseValidation, undocumentedCallbacks } from './scenarios/response-validator';

if (/[\\/]e2e[\\/]/.test(expect.getState().testPath ?? '')) {
  const validation = installResponseValidation();
  afterEach(() => {
    const refused = validation.refused.splice(0);
    if (refused.length > 0) throw new Error(`answers the OpenAPI document does not allow:\n${refused.join('\n')}`);
    const callbacks = undocumentedCallbacks.splice(0);
    if (callbacks.length > 0)
      throw new Error(`callbacks the OpenAPI document's webhooks do not describe:\n${callbacks.join('\n')}`);
  });
  afterAll(() => {
    validation.uninstall();
    // Callbacks that came after the last test.
    const callbacks = undocumentedCallbacks.splice(0);
    if (callbacks.length > 0)
      throw new Error(`callbacks the OpenAPI document's webhooks do not describe:\n${callbacks.join('\n')}`);
  });
}
