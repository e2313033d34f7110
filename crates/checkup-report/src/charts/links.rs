//! PCIe and NVLink throughput against the PCIe link's peak over time.

use checkup_model::{ChartId, Diagnosis};
use checkup_text::report::Text;

use super::style::{Area, BLUE, GREEN};
use super::time::{ceiling_chart, points, Ceiling, TimeFrame};

/// The chart's spec.
pub(super) const SPEC: super::spec::Spec = super::spec::Spec {
    id: ChartId::Links,
    title: |t| t.chart_links,
    height: super::spec::usual_height,
    shown: |d| {
        super::spec::first_gpu(d).is_some_and(|g| {
            g.pcie_rx_gbs
                .iter()
                .chain(&g.pcie_tx_gbs)
                .any(Option::is_some)
        })
    },
    over_time: true,
    draw: |a, frame, d, t| super::spec::on_first_gpu(links_chart, a, frame, d, t),
};

/// What crossed the PCIe link each way against its peak, and NVLink where any crossed it:
/// copies that fill the link show as a curve at the line.
fn links_chart(
    a: &Area,
    hover: &TimeFrame,
    d: &Diagnosis,
    g: &checkup_model::GpuSeries,
    t: &Text,
) -> Result<(), String> {
    let mut more = vec![(
        points(&g.pcie_t, &g.pcie_tx_gbs),
        BLUE,
        true,
        t.series_pcie_tx,
    )];
    // A GPU without NVLink peers reads zero: no curves for a link that is not there.
    let carried = |v: &[Option<f32>]| v.iter().flatten().any(|x| *x > 0.01);
    if carried(&g.nvlink_rx_gbs) || carried(&g.nvlink_tx_gbs) {
        more.push((
            points(&g.gpm_t, &g.nvlink_rx_gbs),
            GREEN,
            false,
            t.series_nvlink_rx,
        ));
        more.push((
            points(&g.gpm_t, &g.nvlink_tx_gbs),
            GREEN,
            true,
            t.series_nvlink_tx,
        ));
    }
    let c = Ceiling {
        caption: t.chart_links,
        axis: t.axis_gbs,
        unit: "GB/s",
        series: t.series_pcie_rx,
        ceiling_label: t.series_pcie_peak,
        more,
    };
    ceiling_chart(
        a,
        hover,
        d,
        g,
        points(&g.pcie_t, &g.pcie_rx_gbs),
        g.pcie_peak_gbs,
        c,
        t,
    )
}
