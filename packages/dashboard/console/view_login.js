// Login for token mode: the token is sent once (POST /api/session) and exchanged for an
// HttpOnly session cookie; the page never stores it.
import { h, uniqueId } from './dom.js'
import { login } from './session.js'
import { navigate } from './router.js'

/** The login view: `{ element, dispose() }`. `onLoggedIn()` refreshes the shell. */
export function loginView(route, onLoggedIn) {
  const id = uniqueId('token')
  const input = h('input', {
    id,
    type: 'password',
    name: 'token',
    required: true,
    autocomplete: 'current-password',
    'aria-describedby': `${id}-error`,
  })
  const error = h('p', { id: `${id}-error`, class: 'field-error', role: 'alert' })
  const submit = h('button', { type: 'submit', class: 'button button-primary', text: 'Sign in' })
  const form = h(
    'form',
    { class: 'login-form' },
    h('div', { class: 'field' }, h('label', { for: id, text: 'API token' }), input),
    error,
    submit,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void signIn({ input, error, submit }, route.query.get('next'), onLoggedIn)
  })
  const element = h(
    'section',
    { class: 'view view-login', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title', tabindex: '-1', text: 'Sign in to Cairn' }),
    h('p', { text: 'This dashboard requires a token. Ask whoever runs it for one.' }),
    form,
  )
  queueMicrotask(() => input.focus())
  return { element, dispose: () => {} }
}

async function signIn({ input, error, submit }, next, onLoggedIn) {
  if (input.value === '') {
    error.textContent = 'Enter a token.'
    input.focus()
    return
  }
  submit.disabled = true
  error.textContent = ''
  try {
    await login(input.value)
    input.value = ''
    onLoggedIn()
    navigate(safeNext(next), { replace: true })
  } catch (failure) {
    error.textContent =
      failure.code === 'E_UNAUTHORIZED'
        ? 'That token is not accepted.'
        : `Could not sign in: ${failure.message}`
    input.focus()
    input.select()
  } finally {
    submit.disabled = false
  }
}

/** Only ever returns to a route inside the console. */
function safeNext(next) {
  return typeof next === 'string' && next.startsWith('#/') && !next.startsWith('#/login')
    ? next
    : '#/runs'
}
