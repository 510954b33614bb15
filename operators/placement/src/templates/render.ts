import { Eta } from 'eta';

// Config files are not HTML: no escaping, no implicit trimming (control tags end in `-%>` to drop
// their own newline).
const eta = new Eta({ autoEscape: false, autoTrim: false, useWith: false });

/** Renders an Eta template string with `it` = params. */
export function renderTemplate<T extends object>(template: string, params: T): string {
  return eta.renderString(template, params);
}
