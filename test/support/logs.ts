import { ConsoleLogger } from '@nestjs/common';

/**
 * A Nest logger that keeps every error and warning line it is given instead of printing it, so a test can
 * check what an app logged: pass it as the app's `logger`. Nest's static loggers write to the
 * last app created with a logger of its own, so create the app under test last.
 */
export class RecordingLogger extends ConsoleLogger {
  readonly lines: string[] = [];

  constructor() {
    super();
    this.setLogLevels(['error', 'warn']);
  }

  override error(message: unknown, ...rest: unknown[]): void {
    this.lines.push([message, ...rest].map(String).join(' '));
  }

  override warn(message: unknown, ...rest: unknown[]): void {
    this.lines.push([message, ...rest].map(String).join(' '));
  }

  /** The lines that contain `text`. */
  find(text: string): string[] {
    return this.lines.filter((line) => line.includes(text));
  }
}
