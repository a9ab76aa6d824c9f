export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost'

/** The app's button look, one place: primary indigo, secondary outlined, danger red, ghost plain. */
export function buttonClass(variant: ButtonVariant, size: 'sm' | 'md' = 'md'): string {
  const base = `inline-flex items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-50 ${
    size === 'sm' ? 'px-2.5 py-1 text-xs' : 'px-3.5 py-1.5 text-sm'
  }`
  switch (variant) {
    case 'primary':
      return `${base} bg-indigo-600 text-white hover:bg-indigo-500 focus-visible:outline-indigo-600`
    case 'secondary':
      return `${base} border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 focus-visible:outline-indigo-600 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700`
    case 'danger':
      return `${base} bg-red-600 text-white hover:bg-red-500 focus-visible:outline-red-600`
    case 'ghost':
      return `${base} text-slate-700 hover:bg-slate-100 focus-visible:outline-indigo-600 dark:text-slate-200 dark:hover:bg-slate-800`
  }
}
