'use client'

import { useEffect, useRef } from 'react'
import type uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

/** How far below the screen a chart starts loading uPlot, so a reader scrolling down finds it drawn. */
const LOAD_MARGIN = '300px'

/**
 * uPlot in React: the chart is created once per `layout` (the set of series), then fed with setData on
 * every data change and setSize when its box resizes, so a live tick costs one canvas redraw and no DOM
 * work. Colours are read by the series' and axes' stroke functions at draw time, so a theme switch only
 * needs a redraw (watched here on the <html> class). uPlot itself is loaded when the first chart nears the
 * screen, in its own chunk, so the page's first paint and hydration do not wait for it (UI.md §4).
 */
export function UPlotChart({
  options,
  data,
  layout,
  height,
  onCursor,
  onReady,
}: {
  /** Read when the chart is created (i.e. when `layout` changes); width and height come from the box. */
  options: Omit<uPlot.Options, 'width' | 'height'>
  data: uPlot.AlignedData
  /** Changes when the series change: the chart is then rebuilt. */
  layout: string
  height: number
  /** The data index under the cursor, or null when the cursor leaves. */
  onCursor?: (index: number | null) => void
  onReady?: (chart: uPlot | null) => void
}) {
  const box = useRef<HTMLDivElement>(null)
  const chart = useRef<uPlot | null>(null)
  const latest = useRef({ options, data, height, onCursor, onReady })
  useEffect(() => {
    latest.current = { options, data, height, onCursor, onReady }
  })

  useEffect(() => {
    const element = box.current
    if (element === null) return
    const create = (UPlot: typeof uPlot): (() => void) => {
      const { options: chartOptions, data: initial, height: initialHeight } = latest.current
      const instance = new UPlot(
        {
          ...chartOptions,
          width: Math.max(100, element.clientWidth),
          height: initialHeight,
          hooks: {
            ...chartOptions.hooks,
            setCursor: [...(chartOptions.hooks?.setCursor ?? []), (u) => latest.current.onCursor?.(u.cursor.idx ?? null)],
          },
        },
        initial,
        element,
      )
      chart.current = instance
      // The data may have moved on while uPlot loaded.
      if (latest.current.data !== initial) instance.setData(latest.current.data)
      if (latest.current.height !== instance.height) instance.setSize({ width: instance.width, height: latest.current.height })
      latest.current.onReady?.(instance)
      const resize = new ResizeObserver(() => {
        const width = Math.max(100, element.clientWidth)
        if (width !== instance.width || latest.current.height !== instance.height) instance.setSize({ width, height: latest.current.height })
      })
      resize.observe(element)
      const theme = new MutationObserver(() => instance.redraw(false, true))
      theme.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] })
      return () => {
        resize.disconnect()
        theme.disconnect()
        latest.current.onReady?.(null)
        instance.destroy()
        chart.current = null
      }
    }
    let cleanup: (() => void) | undefined
    let cancelled = false
    // Loaded once the box nears the screen: uPlot's module sets up Intl formatters (the locale data, about 0.1 s
    // of a phone's CPU) and a phone's first screen of the mirror page ends above the chart.
    const near = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return
      near.disconnect()
      // Drawn a task after the module loads: its evaluation (the Intl set-up) and the first draw (axes, grid,
      // series, ~0.1 s each at a phone's speed) had been one long task together.
      void import('uplot').then(({ default: UPlot }) => {
        setTimeout(() => {
          if (!cancelled) cleanup = create(UPlot)
        }, 0)
      })
    }, { rootMargin: `${LOAD_MARGIN} 0px` })
    near.observe(element)
    return () => {
      cancelled = true
      near.disconnect()
      cleanup?.()
    }
  }, [layout])

  useEffect(() => {
    chart.current?.setData(data)
  }, [data])

  useEffect(() => {
    const instance = chart.current
    if (instance !== null && instance.height !== height) instance.setSize({ width: instance.width, height })
  }, [height])

  return <div ref={box} aria-hidden className="w-full" />
}
