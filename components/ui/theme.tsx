'use client'

import { createContext, useCallback, useContext, useEffect, useSyncExternalStore, type ReactNode } from 'react'

/**
 * Light, dark, or the system's choice (the default), remembered in localStorage. The class on <html> is set
 * before the first paint by THEME_SCRIPT (app/layout.tsx), so a dark page never flashes white; this provider
 * keeps it right afterwards, also when the system switches.
 */
export type ThemeChoice = 'system' | 'light' | 'dark'

export const THEME_STORAGE_KEY = 'mirrorboard-theme'

export const THEME_SCRIPT = `(function(){try{var c=localStorage.getItem('${THEME_STORAGE_KEY}');var d=c==='dark'||(c!=='light'&&matchMedia('(prefers-color-scheme: dark)').matches);document.documentElement.classList.toggle('dark',d);document.documentElement.style.colorScheme=d?'dark':'light'}catch(e){}})()`

interface ThemeContextValue {
  readonly choice: ThemeChoice
  readonly setChoice: (choice: ThemeChoice) => void
}

const ThemeContext = createContext<ThemeContextValue>({ choice: 'system', setChoice: () => {} })

function readChoice(): ThemeChoice {
  try {
    const stored = localStorage.getItem(THEME_STORAGE_KEY)
    return stored === 'light' || stored === 'dark' ? stored : 'system'
  } catch {
    return 'system'
  }
}

function apply(choice: ThemeChoice): void {
  const dark = choice === 'dark' || (choice === 'system' && matchMedia('(prefers-color-scheme: dark)').matches)
  document.documentElement.classList.toggle('dark', dark)
  document.documentElement.style.colorScheme = dark ? 'dark' : 'light'
}

// The stored choice as an external store: other tabs that change it (storage events) and this one (notify).
const choiceListeners = new Set<() => void>()
function subscribeChoice(listener: () => void): () => void {
  choiceListeners.add(listener)
  window.addEventListener('storage', listener)
  return () => {
    choiceListeners.delete(listener)
    window.removeEventListener('storage', listener)
  }
}

export function ThemeProvider({ children }: { children: ReactNode }) {
  const choice = useSyncExternalStore(subscribeChoice, readChoice, () => 'system' as const)
  useEffect(() => {
    apply(choice)
    if (choice !== 'system') return
    const media = matchMedia('(prefers-color-scheme: dark)')
    const onChange = () => apply('system')
    media.addEventListener('change', onChange)
    return () => media.removeEventListener('change', onChange)
  }, [choice])
  const setChoice = useCallback((next: ThemeChoice) => {
    try {
      if (next === 'system') localStorage.removeItem(THEME_STORAGE_KEY)
      else localStorage.setItem(THEME_STORAGE_KEY, next)
    } catch {
      // Private mode without storage: the choice lasts for this tab.
    }
    for (const listener of choiceListeners) listener()
  }, [])
  return <ThemeContext.Provider value={{ choice, setChoice }}>{children}</ThemeContext.Provider>
}

export function useTheme(): ThemeContextValue {
  return useContext(ThemeContext)
}
