/**
 * The YAML functions the operators use, in a module of their own: an operator imports it where it
 * reads or writes YAML (`await import('@stackops/lib-common/yaml')`), so the `yaml` package is
 * compiled on first use, not at every start (ADR 0057). A dynamic import of `yaml` itself would
 * not do: it is CommonJS, and the bundle would hand over only its default export.
 */
export { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
