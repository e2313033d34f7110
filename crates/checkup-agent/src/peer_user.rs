//! Which local user holds the other end of a loopback connection. Over loopback every peer
//! is 127.0.0.1, so the address cannot tell another user of the GPU host from the app's own
//! SSH tunnel; the kernel can. One `SOCK_DIAG_BY_FAMILY` request over netlink asks for the
//! one socket with the connection's exact four-tuple (no dump of the table: an earlier try
//! that read `/proc/net/tcp` per connection took a second under a flood) and its answer
//! carries the owner's uid. Any failure (no netlink, as in some sandboxes) is None, and the
//! caller falls back to the address.

use std::net::{IpAddr, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_REQUEST: u16 = 1;
const NLMSG_HDR_LEN: usize = 16;
/// `inet_diag_req_v2`: family, protocol, ext, pad, states, then `inet_diag_sockid`.
const REQ_LEN: usize = 8 + SOCKID_LEN;
/// `inet_diag_sockid`: sport, dport, src[4], dst[4], if, cookie[2].
const SOCKID_LEN: usize = 4 + 16 + 16 + 4 + 8;
/// `idiag_uid` in `inet_diag_msg`: family, state, timer, retrans, the sockid, expires,
/// rqueue, wqueue, then uid.
const UID_AT: usize = NLMSG_HDR_LEN + 4 + SOCKID_LEN + 12;

/// The uid owning the socket at `peer` whose other end is `local`: the client's user, for a
/// connection this process accepted on `local` from `peer`. Both ends must be on this host.
pub fn peer_uid(local: SocketAddr, peer: SocketAddr) -> Option<u32> {
    let family = match (local.ip(), peer.ip()) {
        (IpAddr::V4(_), IpAddr::V4(_)) => libc::AF_INET,
        (IpAddr::V6(_), IpAddr::V6(_)) => libc::AF_INET6,
        _ => return None,
    };
    let request = request(family as u8, peer, local);
    // SAFETY: a plain socket(2) call; the descriptor is owned at once.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            libc::NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` was just returned by socket(2) and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // Netlink answers at once; a kernel that never does must not stall the accept loop.
    let timeout = libc::timeval {
        tv_sec: 0,
        tv_usec: 200_000,
    };
    // SAFETY: setsockopt with a valid descriptor and a timeval of the size given.
    unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&timeout as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        );
    }
    // SAFETY: the kernel (port 0) as the destination, the request's bytes as the message.
    let sent = unsafe {
        let mut to: libc::sockaddr_nl = std::mem::zeroed();
        to.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        libc::sendto(
            fd.as_raw_fd(),
            request.as_ptr().cast(),
            request.len(),
            0,
            (&to as *const libc::sockaddr_nl).cast(),
            std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
        )
    };
    if sent != request.len() as isize {
        return None;
    }
    let mut answer = [0u8; 512];
    // SAFETY: recv into a buffer of the length given.
    let got = unsafe { libc::recv(fd.as_raw_fd(), answer.as_mut_ptr().cast(), answer.len(), 0) };
    let got = usize::try_from(got).ok()?;
    uid_of(&answer[..got])
}

/// The request for the one socket whose own end is `own` and whose other end is `other`.
fn request(family: u8, own: SocketAddr, other: SocketAddr) -> Vec<u8> {
    let mut m = Vec::with_capacity(NLMSG_HDR_LEN + REQ_LEN);
    m.extend_from_slice(&((NLMSG_HDR_LEN + REQ_LEN) as u32).to_ne_bytes());
    m.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    m.extend_from_slice(&NLM_F_REQUEST.to_ne_bytes());
    m.extend_from_slice(&1u32.to_ne_bytes()); // sequence
    m.extend_from_slice(&0u32.to_ne_bytes()); // port: the kernel fills it in
    m.push(family);
    m.push(libc::IPPROTO_TCP as u8);
    m.push(0); // no extensions
    m.push(0);
    m.extend_from_slice(&u32::MAX.to_ne_bytes()); // any state
    m.extend_from_slice(&own.port().to_be_bytes());
    m.extend_from_slice(&other.port().to_be_bytes());
    m.extend_from_slice(&address(own.ip()));
    m.extend_from_slice(&address(other.ip()));
    m.extend_from_slice(&0u32.to_ne_bytes()); // any interface
    m.extend_from_slice(&u32::MAX.to_ne_bytes()); // INET_DIAG_NOCOOKIE
    m.extend_from_slice(&u32::MAX.to_ne_bytes());
    m
}

/// An address as `inet_diag_sockid` holds it: 16 bytes, an IPv4 one in the first four.
fn address(ip: IpAddr) -> [u8; 16] {
    let mut out = [0u8; 16];
    match ip {
        IpAddr::V4(v4) => out[..4].copy_from_slice(&v4.octets()),
        IpAddr::V6(v6) => out.copy_from_slice(&v6.octets()),
    }
    out
}

/// The uid in an `inet_diag_msg` answer; None for an error answer or a short one.
fn uid_of(answer: &[u8]) -> Option<u32> {
    let kind = u16::from_ne_bytes(answer.get(4..6)?.try_into().ok()?);
    // Anything else, an NLMSG_ERROR above all, says the socket was not found.
    if kind != SOCK_DIAG_BY_FAMILY {
        return None;
    }
    Some(u32::from_ne_bytes(
        answer.get(UID_AT..UID_AT + 4)?.try_into().ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_client_is_owned_by_the_user_that_connected() {
        for bind in ["127.0.0.1:0", "[::1]:0"] {
            let Ok(listener) = std::net::TcpListener::bind(bind) else {
                continue; // no IPv6 loopback on this host
            };
            let local = listener.local_addr().unwrap();
            let client = std::net::TcpStream::connect(local).unwrap();
            let (_served, peer) = listener.accept().unwrap();
            assert_eq!(peer, client.local_addr().unwrap());
            // SAFETY: getuid never fails.
            let me = unsafe { libc::getuid() };
            assert_eq!(peer_uid(local, peer), Some(me), "{bind}");
        }
    }

    #[test]
    fn a_connection_that_is_not_there_has_no_owner() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let nobody: SocketAddr = "127.0.0.1:9".parse().unwrap();
        assert_eq!(peer_uid(local, nobody), None);
        let v6: SocketAddr = "[::1]:9".parse().unwrap();
        assert_eq!(peer_uid(local, v6), None, "mixed families");
    }

    #[test]
    fn an_error_or_short_answer_has_no_uid() {
        assert_eq!(uid_of(&[0u8; 8]), None);
        const NLMSG_ERROR: u16 = 2;
        let mut error = vec![0u8; 128];
        error[4..6].copy_from_slice(&NLMSG_ERROR.to_ne_bytes());
        assert_eq!(uid_of(&error), None);
    }
}
