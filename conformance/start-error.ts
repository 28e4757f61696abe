/** The run could not start (exit code 2): what was wrong and how to fix it, for one line of output. */
export class StartError extends Error {
  constructor(
    readonly reason: string,
    readonly fix: string,
    options?: ErrorOptions,
  ) {
    super(`${reason}; ${fix}`, options);
    this.name = 'StartError';
  }
}
