interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

interface OrganizationSlots {
  running: number;
  /** Slots pausing after a heavy read (HEAVY_READ_DUTY_CYCLE), not yet free for the next. */
  resting: number;
  waiting: Waiter[];
}

/**
 * The heavy-read budget kept in this process's memory: at most `perOrganization` of one organization's
 * heavy reads at once, the others in line (first come, first served) up to `queueWaitMs`; while some wait,
 * a freed slot rests for `restPerBusyMs` × the time the read ran before the next starts. HeavyReadBudget
 * uses it while Redis does not answer (each API process then enforces the budget by itself).
 */
export class LocalSlots {
  private readonly slots = new Map<string, OrganizationSlots>();

  constructor(
    private readonly perOrganization: number,
    private readonly queueWaitMs: number,
    private readonly restPerBusyMs: number,
  ) {}

  /** Resolves once a slot is the caller's; rejects with `refusal()` past the wait. */
  acquire(organizationId: string, refusal: () => Error): Promise<void> {
    let slots = this.slots.get(organizationId);
    if (!slots) {
      slots = { running: 0, resting: 0, waiting: [] };
      this.slots.set(organizationId, slots);
    }
    if (slots.running + slots.resting < this.perOrganization) {
      slots.running++;
      return Promise.resolve();
    }
    const line = slots;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          line.waiting.splice(line.waiting.indexOf(waiter), 1);
          if (line.running + line.resting + line.waiting.length === 0) this.slots.delete(organizationId);
          reject(refusal());
        }, this.queueWaitMs),
      };
      line.waiting.push(waiter);
    });
  }

  /** Hands the slot to the next in line (after its pause for `busyMs`), or frees it. */
  release(organizationId: string, busyMs: number): void {
    const slots = this.slots.get(organizationId);
    if (!slots) return;
    slots.running--;
    const restMs = busyMs * this.restPerBusyMs;
    if (slots.waiting.length === 0 || restMs < 1) return this.handOver(organizationId, slots);
    slots.resting++;
    setTimeout(() => {
      slots.resting--;
      this.handOver(organizationId, slots);
    }, restMs).unref();
  }

  /** Heavy reads running and waiting here, over all organizations. */
  load(): { running: number; waiting: number } {
    let running = 0;
    let waiting = 0;
    for (const slots of this.slots.values()) {
      running += slots.running;
      waiting += slots.waiting.length;
    }
    return { running, waiting };
  }

  private handOver(organizationId: string, slots: OrganizationSlots): void {
    const next = slots.waiting.shift();
    if (next) {
      slots.running++;
      return next.admit();
    }
    if (slots.running + slots.resting === 0) this.slots.delete(organizationId);
  }
}
