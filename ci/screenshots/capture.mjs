// Drives xprof's UI in headless Chromium: opens "Capture Profile", types the profiler
// service's address, screenshots the dialog, captures, then opens the captured run in the
// trace viewer and screenshots it. Run by ci/capture-screenshot.sh (inside a loopback-only
// network namespace); not part of the tests.
// Usage: node capture.mjs <XPROF_URL> <SERVICE_ADDR> <DIALOG.png> <TRACE.png>
import { chromium } from "playwright-core";

const [xprof, service, dialogPng, tracePng] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
await page.goto(xprof, { waitUntil: "networkidle" });
await page.getByText("Capture Profile", { exact: false }).first().click();
const dialog = page.locator("mat-dialog-container");
await dialog.waitFor();
await dialog.locator("input").first().fill(service);
// A 2 s capture of the running job.
const duration = dialog.locator("input[type=number]").first();
if (await duration.count()) await duration.fill("2000");
// Let the dialog's opening animation finish.
await page.waitForTimeout(1000);
await page.screenshot({ path: dialogPng });
await dialog.getByRole("button", { name: /^\s*Capture\s*$/i }).click();
await page.getByText(/Capture profile successfully/i).waitFor({ timeout: 60000 });
console.log("captured");
// The new run is the newest in the run list; xprof opens it with the trace viewer by URL.
const runs = await (await page.request.get(new URL("/data/plugin/profile/runs", xprof).href)).json();
const run = [...runs].sort().pop();
await page.goto(new URL(`/?run=${encodeURIComponent(run)}&tool=trace_viewer@`, xprof).href,
                { waitUntil: "networkidle" });
await page.waitForTimeout(8000);
await page.screenshot({ path: tracePng });
console.log(`run ${run}`);
await browser.close();
