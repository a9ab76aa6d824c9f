'use client'

import { useState } from 'react'
import type { z } from 'zod'
import { issueAt, issuesOf, type FieldIssues } from '@/lib/ui/form-issues'

/**
 * Inline validation with the API's schema: a field's issue shows once the operator has left the field or tried
 * to submit, so a form does not open covered in red. `check()` on submit reveals every issue and says whether
 * the request may be sent.
 */
export function useFormIssues(schema: z.ZodType, value: unknown) {
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set())
  const [submitted, setSubmitted] = useState(false)
  const issues: FieldIssues = issuesOf(schema, value)
  const valid = Object.keys(issues).length === 0
  return {
    issues,
    valid,
    /** The issue to show beside a field (undefined until it was left or a submit was tried). */
    issue(path: string): string | undefined {
      return submitted || touched.has(path) ? issueAt(issues, path) : undefined
    },
    touch(path: string) {
      if (!touched.has(path)) setTouched(new Set([...touched, path]))
    },
    check(): boolean {
      setSubmitted(true)
      return valid
    },
    reset() {
      setTouched(new Set())
      setSubmitted(false)
    },
  }
}
