/** The one line a failed CLI command prints (oneLine), and its exit code (CliError). */
import { CliError, oneLine } from './cli-error';

describe('a failed command', () => {
  it('prints the first line of the message that says something, never a stack', () => {
    const error = new Error('\n  connect ECONNREFUSED 127.0.0.1:5432  \n    at TCPConnectWrap.afterConnect');
    expect(oneLine(error)).toBe('connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('prints what was thrown when it is not an error, and "failed" when there is nothing to print', () => {
    expect(oneLine('no such topic')).toBe('no such topic');
    expect(oneLine({ message: 'from another realm' })).toBe('from another realm');
    expect(oneLine(new Error(' \n '))).toBe('failed');
  });

  it('exits 2 for a wrong command line unless told it was a store or broker (1)', () => {
    expect(new CliError('--limit must be a positive integer').exitCode).toBe(2);
    expect(new CliError('cannot reach Kafka', 1).exitCode).toBe(1);
  });
});
