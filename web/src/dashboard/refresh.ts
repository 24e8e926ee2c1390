import { refreshDelayMs } from '../model/api';

/** After a failed refresh, try again this much later. */
export const RETRY_MS = 60_000;

/**
 * One clock for a view: runs its refresh now, and again when the answer it returns stops being
 * current (`Cache-Control: max-age`, which the service sets to just after its next 5-minute refresh),
 * so the page follows the service's cadence instead of a timer of its own. While the tab is hidden
 * nothing is asked (a hidden tab has no reader, and a laptop lid closed for a night would otherwise
 * wake up to a queue of refreshes); on return, a refresh that came due meanwhile runs at once.
 */
export class RefreshClock {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the next refresh is due (epoch ms); undefined while one runs or before the first. */
  private due: number | undefined;
  private generation = 0;

  constructor(
    /**
     * Refreshes the view (`first`: the view is new, nothing of it is shown yet); resolves to the answer's max-age in
     * seconds (undefined: one refresh period).
     */
    private readonly refresh: (first: boolean) => Promise<number | undefined>,
    private readonly now: () => number = () => Date.now(),
  ) {
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden && this.due !== undefined && this.due <= this.now()) void this.run();
    });
  }

  private first = false;

  /** Loads the view now (a new location, the first load) and refreshes it from then on at each max-age. */
  start(): void {
    this.first = true;
    void this.run();
  }

  stop(): void {
    this.generation++;
    clearTimeout(this.timer);
    this.due = undefined;
  }

  private async run(): Promise<void> {
    clearTimeout(this.timer);
    const mine = ++this.generation;
    if (document.hidden) {
      this.due = this.now(); // picked up on visibilitychange
      return;
    }
    this.due = undefined;
    let delay: number;
    const first = this.first;
    this.first = false;
    try {
      delay = refreshDelayMs(await this.refresh(first));
    } catch {
      delay = RETRY_MS;
    }
    if (mine !== this.generation) return; // stopped or restarted meanwhile
    this.due = this.now() + delay;
    this.timer = setTimeout(() => void this.run(), delay);
  }
}
