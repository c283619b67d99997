// Entry point of the console: wires the theme toggle, the session (login in token mode) and
// the router, and swaps views in <main>. On each view after the first, focus moves to its
// heading, so keyboard and screen-reader users land on the new content.
import { byId, h, replace } from './dom.js'
import { loginHref, navigate, startRouter } from './router.js'
import { loginFromAddress, logout, refreshSession, session } from './session.js'
import { initTheme } from './theme.js'
import { loginView } from './view_login.js'
import { runView } from './view_run.js'
import { runsView } from './view_runs.js'
import { stepView } from './view_step.js'
import { workersView } from './view_workers.js'
import { queuesView } from './view_queues.js'
import { singletonsView } from './view_singletons.js'
import { schedulesView } from './view_schedules.js'
import { notice } from './widgets.js'

const main = byId('main')
let current = { name: null, view: null }
// The first view leaves focus at the top of the document (the skip link is the first Tab
// stop); later views move focus to their heading so the change is announced.
let firstRender = true

const VIEWS = {
  runs: { create: runsView, title: () => 'Runs' },
  run: { create: runView, title: (route) => `Run ${route.params.id}` },
  step: {
    create: stepView,
    title: (route) => `Position ${route.params.seq} of ${route.params.id}`,
  },
  workers: { create: workersView, title: () => 'Workers' },
  queues: { create: queuesView, title: () => 'Queues' },
  singletons: { create: singletonsView, title: () => 'Singletons' },
  schedules: { create: schedulesView, title: () => 'Schedules' },
  login: { create: (route) => loginView(route, updateShell), title: () => 'Sign in' },
  notFound: { create: notFoundView, title: () => 'Not found' },
}

function render(route) {
  if (needsLogin(route)) return navigate(loginHref(location.hash || '#/runs'), { replace: true })
  if (current.name === route.name && typeof current.view?.update === 'function') {
    return current.view.update(route)
  }
  current.view?.dispose()
  const spec = VIEWS[route.name]
  const view = spec.create(route)
  current = { name: route.name, view }
  replace(main, view.element)
  document.title = `${spec.title(route)} · Cairn`
  if (!firstRender) (main.querySelector('h1') ?? main).focus()
  firstRender = false
}

function needsLogin(route) {
  const { mode, authenticated } = session()
  return route.name !== 'login' && mode === 'token' && !authenticated
}

function notFoundView() {
  const element = h(
    'section',
    { class: 'view' },
    h('h1', { tabindex: '-1', text: 'Not found' }),
    notice('There is no such page in the console.', 'error'),
    h('a', { href: '#/runs', text: 'Back to the runs' }),
  )
  return { element, dispose: () => {} }
}

function updateShell() {
  const { mode, authenticated } = session()
  byId('logout').hidden = !(mode === 'token' && authenticated)
}

async function boot() {
  initTheme(byId('theme-toggle'))
  // A button, not a #main link: the fragment is the router's.
  byId('skip-link').addEventListener('click', () => main.focus())
  byId('logout').addEventListener('click', () => void signOut())
  window.addEventListener('cairn:unauthorized', () => {
    if (!location.hash.startsWith('#/login')) navigate(loginHref(location.hash || '#/runs'))
  })
  await loginFromAddress()
  try {
    await refreshSession()
  } catch {
    // 401 before login in token mode: the event above has already sent us to the login page.
  }
  updateShell()
  startRouter(render)
}

async function signOut() {
  await logout()
  updateShell()
  navigate(loginHref('#/runs'))
}

void boot()
