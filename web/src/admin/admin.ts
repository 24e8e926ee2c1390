import './admin.css';
import { WEEKDAYS } from '#shared/locations/model';
import { el } from '../dashboard/panel';
import { AdminApi, type EditableLocation } from '../model/admin-api';
import { type ExplorerApi, ProblemError } from '../model/api';
import {
  bodyOf,
  emptyGroup,
  emptyLine,
  emptyLocation,
  type GroupValues,
  type LocationValues,
  valuesOf,
} from '../model/location-form';
import { nameOf } from '../model/names';
import { showChanges } from './changes';
import { showGateways } from './gateways';
import { clear, field, messageOf, nextId, place } from './parts';

/**
 * The admin screen (`?view=admin`, shown to admins only; the service refuses anyone else's writes
 * anyway): the organization's locations, a form to create or edit one (name, time zone, sensor
 * groups with their capacity, lines and opening hours) that shows the API's errors at their fields,
 * its change log, and the gateways: register (its id and secret shown once), revoke. A change
 * someone else saved since the form was opened is refused (412: the form says so and offers to reload
 * it), never overwritten. Everything goes through the
 * administration API (docs/admin-api.md) with the page's token.
 */

export interface AdminScreen {
  /** Shows the screen's lists (again). */
  show(): void;
}

/** `onChanged`: a location was created, changed or deleted (the rest of the page reloads its names). */
export function startAdmin(explorer: ExplorerApi, root: HTMLElement, onChanged: () => void): AdminScreen {
  const api = new AdminApi(explorer);
  const listStatus = el('p', { className: 'hint', id: 'admin-list-status' });
  listStatus.setAttribute('role', 'status');
  const list = el('ul', { className: 'admin-list', id: 'admin-location-list' });
  const newButton = el('button', { type: 'button', id: 'admin-new', textContent: 'New location' });
  const editor = el('section', { className: 'panel', id: 'admin-editor', hidden: true });
  editor.setAttribute('aria-labelledby', 'admin-editor-h');
  const gatewaysPanel = el('section', { className: 'panel', id: 'admin-gateways' });
  gatewaysPanel.setAttribute('aria-labelledby', 'admin-gateways-h');
  const locationsPanel = el(
    'section',
    { className: 'panel', id: 'admin-locations' },
    el('h2', { id: 'admin-locations-h' }, 'Locations'),
    listStatus,
    list,
    el('div', { className: 'actions' }, newButton),
  );
  locationsPanel.setAttribute('aria-labelledby', 'admin-locations-h');
  root.replaceChildren(locationsPanel, editor, gatewaysPanel);

  async function showLocations(): Promise<void> {
    listStatus.textContent = 'Loading…';
    try {
      const locations = await explorer.locations();
      list.replaceChildren(
        ...locations.map((l) => {
          const edit = el('button', { type: 'button', className: 'secondary', textContent: `Edit ${nameOf(l)}` });
          edit.addEventListener('click', () => void open(l.id));
          return el('li', {}, el('span', { className: 'name' }, `${nameOf(l)} `), el('code', {}, l.id), ' ', edit);
        }),
      );
      listStatus.textContent =
        locations.length === 0
          ? 'No locations yet: create the first.'
          : `${locations.length} location${locations.length === 1 ? '' : 's'}.`;
    } catch (e) {
      listStatus.textContent = messageOf(e);
    }
  }

  async function open(id: string): Promise<void> {
    try {
      edit(await api.location(id));
    } catch (e) {
      listStatus.textContent = messageOf(e);
    }
  }

  newButton.addEventListener('click', () => edit(undefined));

  /** Draws the form for a location (undefined: a new one). */
  function edit(current: EditableLocation | undefined): void {
    const values: LocationValues = current ? valuesOf(current.resource) : emptyLocation();
    let etag = current?.etag;
    const heading = el('h2', { id: 'admin-editor-h' }, current ? `Edit ${nameOf(current.resource)}` : 'New location');
    const form = el('form', { id: 'admin-location-form', noValidate: true });
    const status = el('p', { id: 'admin-save-status', className: 'hint' });
    status.setAttribute('role', 'status');
    const summary = el('div', { id: 'admin-form-error', className: 'error summary', hidden: true, tabIndex: -1 });
    summary.setAttribute('role', 'alert');
    const groups = el('div', { className: 'admin-groups' });
    const log = el('section', { id: 'admin-changes' });
    log.setAttribute('aria-labelledby', 'admin-changes-h');

    const drawGroups = () => {
      groups.replaceChildren(...values.groups.map((g, i) => groupFieldset(g, i)));
    };
    function groupFieldset(g: GroupValues, i: number): HTMLFieldSetElement {
      const at = `/sensorGroups/${i}`;
      const lines = el('div', { className: 'admin-lines' });
      const drawLines = () =>
        lines.replaceChildren(
          ...g.lines.map((line, k) => {
            const direction = el('select', { id: nextId('dir') });
            direction.dataset.pointer = `${at}/lines/${k}/inDirection`;
            direction.append(
              el('option', { value: 'A', textContent: 'A is in' }),
              el('option', { value: 'B', textContent: 'B is in' }),
            );
            direction.value = line.inDirection;
            direction.addEventListener('change', () => (line.inDirection = direction.value as 'A' | 'B'));
            const remove = el('button', { type: 'button', className: 'secondary', textContent: 'Remove line' });
            remove.addEventListener('click', () => {
              g.lines.splice(k, 1);
              drawLines();
            });
            return el(
              'div',
              { className: 'admin-line' },
              field(
                'Camera',
                line.trackingCameraId,
                `${at}/lines/${k}/trackingCameraId`,
                (v) => (line.trackingCameraId = v),
              ),
              field('Line', line.lineId, `${at}/lines/${k}/lineId`, (v) => (line.lineId = v)),
              el('div', { className: 'field' }, el('label', { htmlFor: direction.id }, 'Direction'), direction),
              remove,
            );
          }),
        );
      drawLines();
      const addLine = el('button', { type: 'button', className: 'secondary', textContent: 'Add line' });
      addLine.addEventListener('click', () => {
        g.lines.push(emptyLine());
        drawLines();
      });
      const removeGroup = el('button', {
        type: 'button',
        className: 'secondary',
        textContent: `Remove group ${g.name || g.id}`,
      });
      removeGroup.addEventListener('click', () => {
        values.groups.splice(i, 1);
        drawGroups();
      });
      const hours = el(
        'div',
        { className: 'admin-hours' },
        ...WEEKDAYS.map((d) =>
          field(d[0]!.toUpperCase() + d.slice(1), g.hours[d], `${at}/openingHours/${d}`, (v) => (g.hours[d] = v), {
            hint: d === 'monday' ? 'HH:MM-HH:MM, several separated by commas; empty: closed' : undefined,
          }),
        ),
      );
      const fieldset = el(
        'fieldset',
        { className: 'admin-group' },
        el('legend', {}, `Sensor group ${g.name || g.id}`),
        field('Group id', g.id, `${at}/id`, (v) => (g.id = v), { inputmode: 'numeric', width: 'narrow' }),
        field('Group name', g.name, `${at}/name`, (v) => (g.name = v)),
        field('Capacity', g.capacity, `${at}/capacity`, (v) => (g.capacity = v), {
          inputmode: 'numeric',
          width: 'narrow',
          hint: 'People or spots; empty: none',
        }),
        el('h3', {}, 'Lines'),
        lines,
        addLine,
        el('h3', {}, 'Opening hours'),
        hours,
        removeGroup,
      );
      fieldset.dataset.pointer = at;
      return fieldset;
    }
    drawGroups();

    const addGroup = el('button', { type: 'button', className: 'secondary', textContent: 'Add sensor group' });
    addGroup.addEventListener('click', () => {
      const ids = values.groups.map((g) => Number(g.id)).filter(Number.isFinite);
      values.groups.push(emptyGroup(ids.length === 0 ? 1 : Math.max(...ids) + 1));
      drawGroups();
    });
    const save = el('button', {
      type: 'submit',
      id: 'admin-save',
      textContent: current ? 'Save changes' : 'Create location',
    });
    const remove = el('button', {
      type: 'button',
      className: 'secondary',
      id: 'admin-delete',
      textContent: 'Delete location',
      hidden: !current,
    });
    form.append(
      ...(current
        ? []
        : [
            field('Id', values.id, '/id', (v) => (values.id = v), {
              hint: 'Letters, digits, . _ ~ -; empty: a generated one',
            }),
          ]),
      field('Name', values.name, '/name', (v) => (values.name = v)),
      field('Type', values.type, '/type', (v) => (values.type = v)),
      field('Time zone', values.timezone, '/timezone', (v) => (values.timezone = v), {
        hint: 'IANA, e.g. Europe/Lisbon: opening hours are in it',
      }),
      groups,
      el('div', { className: 'actions' }, addGroup),
      el('div', { className: 'actions' }, save, remove),
      summary,
      status,
    );

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void submit();
    });
    remove.addEventListener('click', () => void removeLocation());

    async function submit(): Promise<void> {
      clear(form, summary);
      save.disabled = true;
      status.textContent = 'Saving…';
      try {
        const saved =
          current && etag
            ? await api.replace(current.resource.id, bodyOf(values, { withId: false }), etag)
            : await api.create(bodyOf(values, { withId: true }));
        etag = saved.etag;
        current = saved;
        heading.textContent = `Edit ${nameOf(saved.resource)}`;
        remove.hidden = false;
        status.textContent = `Saved ${nameOf(saved.resource)} (revision ${saved.etag.replace(/"/g, '')}).`;
        onChanged();
        void showLocations();
        void showChanges(api, log, saved.resource.id, saved.resource.timezone);
      } catch (e) {
        status.textContent = '';
        if (!stale(e)) place(form, summary, e);
      } finally {
        save.disabled = false;
      }
    }

    async function removeLocation(): Promise<void> {
      if (!current || !etag) return;
      if (
        !window.confirm(
          `Delete ${nameOf(current.resource)}? Its documents stay for reports; its id cannot be given to a new location unawares.`,
        )
      )
        return;
      try {
        await api.remove(current.resource.id, etag);
        editor.hidden = true;
        onChanged();
        void showLocations();
      } catch (e) {
        if (!stale(e)) place(form, summary, e);
      }
    }

    /**
     * 412: someone saved this location since the form was read. Says so, with a way to read it again; true when it was
     * that.
     */
    function stale(e: unknown): boolean {
      if (!(e instanceof ProblemError && e.problem.status === 412 && current)) return false;
      const id = current.resource.id;
      const reload = el('button', { type: 'button', id: 'admin-reload', textContent: 'Reload this location' });
      reload.addEventListener('click', () => void open(id));
      clear(form, summary);
      summary.hidden = false;
      summary.replaceChildren(
        el(
          'p',
          {},
          `Someone else changed ${nameOf(current.resource)} since you opened it, so nothing was saved. Reload it to see their change, then make yours again.`,
        ),
        reload,
      );
      summary.focus?.();
      return true;
    }

    if (current) void showChanges(api, log, current.resource.id, current.resource.timezone);
    editor.replaceChildren(heading, form, log);
    editor.hidden = false;
    heading.scrollIntoView?.({ block: 'start' });
  }

  return {
    show() {
      void showLocations();
      void showGateways(api, gatewaysPanel);
    },
  };
}
