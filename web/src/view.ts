import { fromQuery, type PageState } from './model/url-state';

/** The view the URL names (the dashboard unless `view=report`), shown and named in the header and title. */
export function showView(): PageState['view'] {
  const view = fromQuery(location.search).view;
  const dashboard = view === 'dashboard';
  (document.getElementById('dashboard-view') as HTMLElement).hidden = !dashboard;
  (document.getElementById('report-view') as HTMLElement).hidden = dashboard;
  const name = dashboard ? 'Dashboard' : 'Report builder';
  (document.getElementById('page-h') as HTMLElement).textContent = name;
  document.title = `${name} · Location and Reporting Service`;
  for (const [id, current] of [['nav-dashboard', dashboard], ['nav-report', !dashboard]] as const) {
    const link = document.getElementById(id) as HTMLElement;
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const skip = document.getElementById('skip') as HTMLAnchorElement;
  skip.href = dashboard ? '#dashboard-view' : '#result';
  skip.textContent = dashboard ? 'Skip to the dashboard' : 'Skip to the result';
  return view;
}
