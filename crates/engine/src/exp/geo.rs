//! GeoJSON containment for `geo_compare`: points against polygons, multipolygons and
//! `AeroCircle` regions (and a region containing a point literal, either side).

use serde_json::Value as J;

const EARTH_RADIUS_M: f64 = 6_371_000.0;

enum Shape {
    Point(f64, f64),
    Polygons(Vec<Vec<Vec<(f64, f64)>>>),
    Circle(f64, f64, f64),
}

fn pt(j: &J) -> Option<(f64, f64)> {
    Some((j.get(0)?.as_f64()?, j.get(1)?.as_f64()?))
}

fn rings(j: &J) -> Option<Vec<Vec<(f64, f64)>>> {
    j.as_array()?
        .iter()
        .map(|r| r.as_array()?.iter().map(pt).collect())
        .collect()
}

fn parse(text: &str) -> Option<Shape> {
    let j: J = serde_json::from_str(text).ok()?;
    let c = j.get("coordinates")?;
    match j.get("type")?.as_str()? {
        "Point" => pt(c).map(|(x, y)| Shape::Point(x, y)),
        "Polygon" => Some(Shape::Polygons(vec![rings(c)?])),
        "MultiPolygon" => Some(Shape::Polygons(
            c.as_array()?.iter().map(rings).collect::<Option<_>>()?,
        )),
        "AeroCircle" => {
            let (x, y) = pt(c.get(0)?)?;
            Some(Shape::Circle(x, y, c.get(1)?.as_f64()?))
        }
        _ => None,
    }
}

fn in_ring(p: (f64, f64), ring: &[(f64, f64)]) -> bool {
    let mut inside = false;
    let n = ring.len();
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + n - 1) % n]);
        if (a.1 > p.1) != (b.1 > p.1) && p.0 < (b.0 - a.0) * (p.1 - a.1) / (b.1 - a.1) + a.0 {
            inside = !inside;
        }
    }
    inside
}

fn haversine_m(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (la1, la2) = (a.1.to_radians(), b.1.to_radians());
    let dlat = la2 - la1;
    let dlon = (b.0 - a.0).to_radians();
    let h = (dlat / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlon / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().asin()
}

fn contains(region: &Shape, p: (f64, f64)) -> bool {
    match region {
        Shape::Point(x, y) => (*x, *y) == p,
        Shape::Circle(x, y, r) => haversine_m((*x, *y), p) <= *r,
        Shape::Polygons(ps) => ps.iter().any(|rings| {
            rings.first().is_some_and(|outer| in_ring(p, outer))
                && !rings.iter().skip(1).any(|h| in_ring(p, h))
        }),
    }
}

/// Whether `left` is within `right` or contains it (point-in-region in either order).
pub fn compare(left: &str, right: &str) -> bool {
    match (parse(left), parse(right)) {
        (Some(Shape::Point(x, y)), Some(r)) | (Some(r), Some(Shape::Point(x, y))) => {
            contains(&r, (x, y))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn point_in_polygon_and_circle() {
        let poly = r#"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}"#;
        assert!(super::compare(
            r#"{"type":"Point","coordinates":[5,5]}"#,
            poly
        ));
        assert!(!super::compare(
            r#"{"type":"Point","coordinates":[15,5]}"#,
            poly
        ));
        let circle = r#"{"type":"AeroCircle","coordinates":[[-122.0,37.5],1000]}"#;
        assert!(super::compare(
            circle,
            r#"{"type":"Point","coordinates":[-122.0,37.505]}"#
        ));
        assert!(!super::compare(
            circle,
            r#"{"type":"Point","coordinates":[-122.0,37.6]}"#
        ));
    }
}
