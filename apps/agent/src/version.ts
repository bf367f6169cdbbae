/** The zonewise version (the root package.json), sent in User-Agent headers and logged at start. */
export const AGENT_VERSION: string = (() => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('../../../package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();
