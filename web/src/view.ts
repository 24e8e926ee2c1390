import { fromQuery } from './model/url-state';

/** The views of the page; the bare address (home) becomes one of them once the locations are known. */
export type View = 'sites' | 'dashboard' | 'report' | 'admin';

const NAMES: Readonly<Record<View, string>> = {
  sites: 'Every site',
  dashboard: 'Dashboard',
  report: 'Report builder',
  admin: 'Admin',
};
const SKIP: Readonly<Record<View, [string, string]>> = {
  sites: ['#sites', 'Skip to the sites'],
  dashboard: ['#dashboard-view', 'Skip to the dashboard'],
  report: ['#result', 'Skip to the result'],
  admin: ['#admin-view', 'Skip to the admin screen'],
};

/** The view the URL names; `home` until main.ts resolves it (every site, or a caller's only one). */
export const viewInUrl = (): View | 'home' => fromQuery(location.search).view;

/** Shows one view, names it in the header and the title, and marks its link as the current page. */
export function showView(view: View): View {
  for (const v of Object.keys(NAMES) as View[]) {
    (document.getElementById(`${v}-view`) as HTMLElement).hidden = v !== view;
    const link = document.getElementById(`nav-${v}`) as HTMLElement;
    if (v === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  (document.getElementById('page-h') as HTMLElement).textContent = NAMES[view];
  document.title = `${NAMES[view]} · Location and Reporting Service`;
  const skip = document.getElementById('skip') as HTMLAnchorElement;
  [skip.href, skip.textContent] = SKIP[view];
  return view;
}

/** The Admin link in the header: there for admins only (the service refuses a viewer's writes anyway). */
export function showAdminLink(isAdmin: boolean): void {
  (document.getElementById('nav-admin') as HTMLElement).hidden = !isAdmin;
}
