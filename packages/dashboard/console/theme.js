// Dark and light themes. Without a stored choice the page follows prefers-color-scheme (and
// keeps following it when the system switches); the toggle stores an explicit choice.
const STORAGE_KEY = 'cairn.theme'
const media = window.matchMedia('(prefers-color-scheme: dark)')

function storedTheme() {
  try {
    const value = localStorage.getItem(STORAGE_KEY)
    return value === 'dark' || value === 'light' ? value : null
  } catch {
    return null
  }
}

/** The theme in force: the stored choice, else the system preference. */
export function currentTheme() {
  return storedTheme() ?? (media.matches ? 'dark' : 'light')
}

function apply(button, theme = currentTheme()) {
  document.documentElement.dataset.theme = theme
  const next = theme === 'dark' ? 'light' : 'dark'
  button.textContent = `${next === 'dark' ? 'Dark' : 'Light'} theme`
  button.setAttribute('aria-label', `Switch to the ${next} theme`)
}

/** Applies the theme now and wires `button` as the toggle. */
export function initTheme(button) {
  apply(button)
  media.addEventListener('change', () => apply(button))
  button.addEventListener('click', () => {
    const next = currentTheme() === 'dark' ? 'light' : 'dark'
    try {
      localStorage.setItem(STORAGE_KEY, next)
    } catch {
      // Storage can be disabled; the choice then lasts for this page only.
    }
    apply(button, next)
  })
}
