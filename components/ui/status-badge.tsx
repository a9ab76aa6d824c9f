import type { HTMLAttributes, ReactNode } from 'react'
import { TONE_STYLE } from '@/lib/ui/state-style'
import type { StatusStyle } from '@/lib/ui/status-style'

/**
 * The badge of a status (an operation's, a drill's, a run's, an audit outcome, a lag trend): glyph and word
 * in the status's tone, from the tables of lib/ui/status-style.ts. `children` replaces the word when the
 * badge says more ("lag growing (+1,200/min)"); other attributes (data-*, test ids) go to the badge. The
 * words are an element of their own, so "Succeeded" is found as it reads, without the glyph.
 */
export function StatusBadge({ look, size = 'sm', className = '', children, ...attributes }: { look: StatusStyle; size?: 'sm' | 'md'; children?: ReactNode } & HTMLAttributes<HTMLSpanElement>) {
  return (
    <span
      {...attributes}
      className={`inline-flex items-center gap-1 rounded-full font-medium whitespace-nowrap ring-1 ring-inset ${TONE_STYLE[look.tone].badge} ${size === 'md' ? 'px-2.5 py-0.5 text-sm' : 'px-2 py-0.5 text-xs'} ${className}`}
    >
      <span aria-hidden className={look.active === true ? 'motion-safe:animate-pulse' : undefined}>
        {look.icon}
      </span>
      <span>{children ?? look.label}</span>
    </span>
  )
}
