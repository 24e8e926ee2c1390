import { el, formatNumber } from './panel';

/**
 * The headline tiles: four numbers a manager reads first, each a link to what stands behind it (a
 * report in the builder, or the panel below that draws it). A tile whose answer has not come yet, or
 * failed, says so instead of showing an old number.
 */
export type TileId = 'now' | 'today' | 'peak' | 'entries';

export interface TileContent {
  readonly value: string;
  readonly note: string;
  /** Where the tile leads: the builder's link of its report, or a panel of the page (`#dash-…`). */
  readonly href: string;
  /** A word on the note's tone: `up`/`down` for a change (said in words too, never by colour alone). */
  readonly tone?: 'up' | 'down';
}

const LABELS: Readonly<Record<TileId, string>> = {
  now: 'People here now',
  today: 'Today so far',
  peak: 'Today’s peak',
  entries: 'Entries today',
};

export class Tiles {
  private readonly tiles = new Map<TileId, { link: HTMLAnchorElement; value: HTMLElement; note: HTMLElement }>();

  constructor(list: HTMLElement) {
    list.replaceChildren(
      ...(Object.keys(LABELS) as TileId[]).map((id) => {
        const value = el('span', { className: 'tile-value', textContent: '…' });
        const note = el('span', { className: 'tile-note', textContent: 'Loading…' });
        const link = el(
          'a',
          { className: 'tile', id: `tile-${id}`, href: '#' },
          el('span', { className: 'tile-label', textContent: LABELS[id] }),
          value,
          note,
        );
        this.tiles.set(id, { link, value, note });
        return el('li', {}, link);
      }),
    );
  }

  show(id: TileId, content: TileContent): void {
    const tile = this.tiles.get(id)!;
    tile.value.textContent = content.value;
    tile.note.textContent = content.note;
    tile.link.href = content.href;
    if (content.tone) tile.link.dataset.tone = content.tone;
    else delete tile.link.dataset.tone;
  }

  /** No number: why (closed, failed, nothing configured). */
  unknown(id: TileId, why: string, href = '#'): void {
    this.show(id, { value: '–', note: why, href });
  }

  loading(): void {
    for (const id of this.tiles.keys()) this.show(id, { value: '…', note: 'Loading…', href: '#' });
  }
}

export const count = (n: number): string => formatNumber(n);
