export { type ChartLink, type Drift, findChartLinks, syncChartVersions } from './chart-versions.js';
