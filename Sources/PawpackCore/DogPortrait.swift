import Foundation

/// Drawn dog portraits for the demo community (no photo collection is available), and the app
/// icon: flat shapes on a soft background, varied by coat colours, ears, muzzle length, size
/// and markings, so that a deck of demo dogs looks like a deck of different dogs.
public struct DogPortrait: Sendable, Equatable {
    public enum Ears: Sendable, CaseIterable { case floppy, pointed, folded }

    public var coat: RGB
    /// Muzzle, chest and markings.
    public var secondary: RGB
    public var background: RGB
    public var ears: Ears
    /// 0 (short, a pug) … 1 (long, a collie).
    public var muzzleLength: Double
    /// 0 (toy) … 1 (giant): larger dogs fill more of the frame.
    public var size: Double
    public var eyePatch: Bool
    public var tongue: Bool

    public init(
        coat: RGB, secondary: RGB, background: RGB, ears: Ears, muzzleLength: Double, size: Double,
        eyePatch: Bool, tongue: Bool
    ) {
        self.coat = coat
        self.secondary = secondary
        self.background = background
        self.ears = ears
        self.muzzleLength = muzzleLength
        self.size = size
        self.eyePatch = eyePatch
        self.tongue = tongue
    }

    public struct RGB: Sendable, Equatable {
        public var r: Double, g: Double, b: Double
        public init(_ r: Double, _ g: Double, _ b: Double) { (self.r, self.g, self.b) = (r, g, b) }
        public init(hex: Int) { self.init(Double(hex >> 16 & 0xFF), Double(hex >> 8 & 0xFF), Double(hex & 0xFF)) }
        func mixed(with other: RGB, _ amount: Double) -> RGB {
            RGB(r + (other.r - r) * amount, g + (other.g - g) * amount, b + (other.b - b) * amount)
        }
    }

    /// The portrait as a PNG of `width` × `height` pixels (4:5 suits the deck's cards).
    public func png(width: Int = 360, height: Int = 450) -> Data {
        var canvas = Canvas(width: width, height: height)
        let w = Double(width)
        let h = Double(height)
        canvas.verticalGradient(top: background.mixed(with: RGB(255, 255, 255), 0.35), bottom: background)
        let scale = 0.78 + 0.3 * size
        let cx = w / 2
        let cy = h * 0.5
        let head = w * 0.3 * scale
        let dark = coat.mixed(with: RGB(20, 15, 10), 0.35)
        // Body and chest below the head.
        canvas.ellipse(cx: cx, cy: h * 0.98, rx: head * 1.45, ry: h * 0.3, colour: coat)
        canvas.ellipse(cx: cx, cy: h * 0.95, rx: head * 0.7, ry: h * 0.22, colour: secondary)
        // Ears behind or over the head.
        switch ears {
        case .pointed:
            for side in [-1.0, 1.0] {
                canvas.ellipse(
                    cx: cx + side * head * 0.62, cy: cy - head * 0.85, rx: head * 0.26, ry: head * 0.55,
                    rotation: side * 0.35, colour: dark)
                canvas.ellipse(
                    cx: cx + side * head * 0.6, cy: cy - head * 0.78, rx: head * 0.13, ry: head * 0.35,
                    rotation: side * 0.35, colour: secondary.mixed(with: RGB(230, 150, 150), 0.4))
            }
        case .floppy, .folded:
            break
        }
        canvas.ellipse(cx: cx, cy: cy, rx: head, ry: head * 1.02, colour: coat)
        if eyePatch { canvas.ellipse(cx: cx + head * 0.36, cy: cy - head * 0.12, rx: head * 0.3, ry: head * 0.28, colour: dark) }
        switch ears {
        case .floppy:
            for side in [-1.0, 1.0] {
                canvas.ellipse(
                    cx: cx + side * head * 0.95, cy: cy + head * 0.05, rx: head * 0.3, ry: head * 0.68,
                    rotation: side * -0.25, colour: dark)
            }
        case .folded:
            for side in [-1.0, 1.0] {
                canvas.ellipse(
                    cx: cx + side * head * 0.68, cy: cy - head * 0.78, rx: head * 0.34, ry: head * 0.24,
                    rotation: side * 0.5, colour: dark)
            }
        case .pointed:
            break
        }
        // Muzzle: longer dogs have a longer, lower muzzle.
        let muzzleY = cy + head * (0.38 + 0.18 * muzzleLength)
        let muzzleH = head * (0.34 + 0.22 * muzzleLength)
        canvas.ellipse(cx: cx, cy: muzzleY, rx: head * 0.5, ry: muzzleH, colour: secondary)
        if tongue {
            canvas.ellipse(cx: cx, cy: muzzleY + muzzleH * 0.75, rx: head * 0.15, ry: head * 0.2, colour: RGB(222, 92, 110))
        }
        canvas.ellipse(cx: cx, cy: muzzleY - muzzleH * 0.45, rx: head * 0.17, ry: head * 0.12, colour: RGB(34, 28, 26))
        canvas.ellipse(cx: cx, cy: muzzleY - muzzleH * 0.5, rx: head * 0.06, ry: head * 0.035, colour: RGB(120, 110, 110))
        for side in [-1.0, 1.0] {
            let ex = cx + side * head * 0.36
            let ey = cy - head * 0.12
            canvas.ellipse(cx: ex, cy: ey, rx: head * 0.13, ry: head * 0.15, colour: RGB(255, 255, 255))
            canvas.ellipse(cx: ex, cy: ey + head * 0.02, rx: head * 0.1, ry: head * 0.12, colour: RGB(40, 28, 20))
            canvas.ellipse(cx: ex - head * 0.03, cy: ey - head * 0.03, rx: head * 0.035, ry: head * 0.035, colour: RGB(255, 255, 255))
        }
        return PNGEncoder.encode(width: width, height: height, rgb: canvas.bytes)
    }

    /// Pawpack's icon: a white paw on the brand colour, `size` pixels square.
    public static func appIcon(size: Int, background: RGB = RGB(hex: 0xA8400C)) -> Data {
        var canvas = Canvas(width: size, height: size)
        canvas.verticalGradient(top: background.mixed(with: RGB(255, 200, 150), 0.25), bottom: background)
        let white = RGB(255, 255, 255)
        // The same paw as the `paw` icon, inside the safe zone of a maskable icon.
        let inset = Double(size) * 0.18
        let scale = (Double(size) - 2 * inset) / 24
        func at(_ x: Double, _ y: Double) -> (Double, Double) { (inset + x * scale, inset + y * scale) }
        let pads: [(Double, Double, Double, Double)] = [
            (12, 16.2, 4.6, 3.8), (5.4, 10.6, 2.1, 2.6), (18.6, 10.6, 2.1, 2.6),
            (9.1, 6.2, 2.1, 2.7), (14.9, 6.2, 2.1, 2.7),
        ]
        for (x, y, rx, ry) in pads {
            let (px, py) = at(x, y)
            canvas.ellipse(cx: px, cy: py, rx: rx * scale, ry: ry * scale, colour: white)
        }
        return PNGEncoder.encode(width: size, height: size, rgb: canvas.bytes)
    }
}

/// Drawn cat portraits, as `DogPortrait` draws dogs: for the demo household's cats, and any
/// pet shown without a photo of its own.
public struct CatPortrait: Sendable, Equatable {
    public typealias RGB = DogPortrait.RGB

    public var coat: RGB
    /// Muzzle, chest and the insides of the ears.
    public var secondary: RGB
    public var background: RGB
    public var eyes: RGB
    public var stripes: Bool

    public init(coat: RGB, secondary: RGB, background: RGB, eyes: RGB, stripes: Bool) {
        self.coat = coat
        self.secondary = secondary
        self.background = background
        self.eyes = eyes
        self.stripes = stripes
    }

    public func png(width: Int = 360, height: Int = 450) -> Data {
        var canvas = Canvas(width: width, height: height)
        let w = Double(width)
        let h = Double(height)
        canvas.verticalGradient(top: background.mixed(with: RGB(255, 255, 255), 0.35), bottom: background)
        let cx = w / 2
        let cy = h * 0.52
        let head = w * 0.27
        let dark = coat.mixed(with: RGB(20, 15, 10), 0.4)
        canvas.ellipse(cx: cx, cy: h * 1.0, rx: head * 1.3, ry: h * 0.3, colour: coat)
        canvas.ellipse(cx: cx, cy: h * 0.97, rx: head * 0.6, ry: h * 0.2, colour: secondary)
        // Tall pointed ears, set wide.
        for side in [-1.0, 1.0] {
            canvas.ellipse(
                cx: cx + side * head * 0.66, cy: cy - head * 0.88, rx: head * 0.3, ry: head * 0.62, rotation: side * 0.45, colour: coat)
            canvas.ellipse(
                cx: cx + side * head * 0.64, cy: cy - head * 0.8, rx: head * 0.15, ry: head * 0.38, rotation: side * 0.45,
                colour: secondary.mixed(with: RGB(235, 160, 170), 0.5))
        }
        canvas.ellipse(cx: cx, cy: cy, rx: head * 1.05, ry: head * 0.92, colour: coat)
        if stripes {
            for offset in [-0.22, 0.0, 0.22] {
                canvas.ellipse(cx: cx + offset * head, cy: cy - head * 0.62, rx: head * 0.06, ry: head * 0.22, colour: dark)
            }
        }
        // Cheeks and a small muzzle, a pink nose, whiskers.
        for side in [-1.0, 1.0] {
            canvas.ellipse(cx: cx + side * head * 0.2, cy: cy + head * 0.38, rx: head * 0.25, ry: head * 0.19, colour: secondary)
        }
        canvas.ellipse(cx: cx, cy: cy + head * 0.22, rx: head * 0.1, ry: head * 0.07, colour: RGB(214, 110, 130))
        for side in [-1.0, 1.0] {
            for tilt in [-0.12, 0.08] {
                canvas.ellipse(
                    cx: cx + side * head * 0.72, cy: cy + head * (0.32 + tilt), rx: head * 0.36, ry: head * 0.012,
                    rotation: side * tilt * 2, colour: RGB(250, 248, 240))
            }
        }
        // Almond eyes with slit pupils.
        for side in [-1.0, 1.0] {
            let ex = cx + side * head * 0.4
            let ey = cy - head * 0.1
            canvas.ellipse(cx: ex, cy: ey, rx: head * 0.19, ry: head * 0.14, rotation: side * -0.2, colour: eyes)
            canvas.ellipse(cx: ex, cy: ey, rx: head * 0.04, ry: head * 0.12, colour: RGB(25, 20, 18))
            canvas.ellipse(cx: ex - head * 0.05, cy: ey - head * 0.05, rx: head * 0.03, ry: head * 0.03, colour: RGB(255, 255, 255))
        }
        return PNGEncoder.encode(width: width, height: height, rgb: canvas.bytes)
    }
}

/// A pixel buffer that fills shapes with smooth (anti-aliased) edges.
private struct Canvas {
    let width: Int, height: Int
    private var pixels: [DogPortrait.RGB]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = Array(repeating: DogPortrait.RGB(0, 0, 0), count: width * height)
    }

    mutating func verticalGradient(top: DogPortrait.RGB, bottom: DogPortrait.RGB) {
        for y in 0..<height {
            let colour = top.mixed(with: bottom, Double(y) / Double(max(1, height - 1)))
            for x in 0..<width { pixels[y * width + x] = colour }
        }
    }

    /// An ellipse turned by `rotation` radians; edge pixels blend by their distance to the edge.
    mutating func ellipse(cx: Double, cy: Double, rx: Double, ry: Double, rotation: Double = 0, colour: DogPortrait.RGB) {
        let reach = max(rx, ry) + 1
        let cosR = cos(rotation)
        let sinR = sin(rotation)
        let minY = max(0, Int(cy - reach))
        let maxY = min(height - 1, Int(cy + reach))
        let minX = max(0, Int(cx - reach))
        let maxX = min(width - 1, Int(cx + reach))
        guard minY <= maxY, minX <= maxX else { return }
        let smaller = min(rx, ry)
        for y in minY...maxY {
            for x in minX...maxX {
                let dx = Double(x) + 0.5 - cx
                let dy = Double(y) + 0.5 - cy
                let u = (dx * cosR + dy * sinR) / rx
                let v = (-dx * sinR + dy * cosR) / ry
                let distance = ((u * u + v * v).squareRoot() - 1) * smaller
                let coverage = min(1, max(0, 0.5 - distance))
                if coverage > 0 { pixels[y * width + x] = pixels[y * width + x].mixed(with: colour, coverage) }
            }
        }
    }

    var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(pixels.count * 3)
        for p in pixels {
            out.append(UInt8(max(0, min(255, p.r.rounded()))))
            out.append(UInt8(max(0, min(255, p.g.rounded()))))
            out.append(UInt8(max(0, min(255, p.b.rounded()))))
        }
        return out
    }
}
